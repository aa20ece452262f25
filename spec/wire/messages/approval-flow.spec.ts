import type Anthropic from '@anthropic-ai/sdk';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { messagesRig, type MessagesGateway } from '../../e2e/messages-gateway';

type Param = Anthropic.MessageParam;
const IDS = 'note ids: groceries';
const notes = { name: 'notes', match: { model: 'claude-*' }, hierarchy: ['notes_open', 'notes_delete'] };
const judge = {
  rules: [
    {
      surface: 'tool_call' as const,
      when: { annotation: 'destructiveHint' },
      action: 'ask' as const,
      reason: 'it deletes a note',
    },
  ],
};
const approveTool: Anthropic.Tool = {
  name: 'approve_tool_call',
  description: 'Ask the user to approve a tool call.',
  input_schema: {
    type: 'object',
    properties: { tool: { type: 'string' }, arguments: { type: 'object' }, reason: { type: 'string' } },
  },
};
const ask = { model: 'claude-sonnet-4-6', max_tokens: 1024, tools: [approveTool] };
const question: Param = { role: 'user', content: 'open my notes and delete the groceries' };
/** turn 1: a read-only call and a destructive one together; then the model's final word */
const script = [
  {
    text: 'On it.',
    toolUses: [
      { id: 'toolu_open', name: 'notes_open' },
      { id: 'toolu_del', name: 'notes_delete', input: { id: 'groceries' } },
    ],
  },
  { text: 'Done.' },
];
const modelTurn = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'On it.' },
    { type: 'tool_use', id: 'toolu_open', name: 'notes_open', input: {} },
    { type: 'tool_use', id: 'toolu_del', name: 'notes_delete', input: { id: 'groceries' } },
  ],
};
const openResult = { type: 'tool_result', tool_use_id: 'toolu_open', content: IDS };

describe('approvals on Anthropic Messages: a tool_use of the approval tool out, its tool_result in (@anthropic-ai/sdk, real MCP server)', () => {
  const rig = messagesRig();
  beforeEach(() => {
    rig.mcp.setTool({
      name: 'notes_open',
      description: 'Open the notebook.',
      annotations: { readOnlyHint: true },
      handler: () => ({ content: [{ type: 'text', text: IDS }] }),
    });
    rig.mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note.',
      args: { id: z.string() },
      annotations: { destructiveHint: true },
      handler: ({ id }) => ({ content: [{ type: 'text', text: `deleted ${String(id)}` }] }),
    });
  });
  const deletes = () => rig.mcp.calls.filter((call) => call.name === 'notes_delete');

  const asked = (gw: MessagesGateway, stream: boolean) =>
    stream
      ? gw.anthropic.messages.stream({ ...ask, messages: [question] }).finalMessage()
      : gw.anthropic.messages.create({ ...ask, messages: [question] });

  function answering(handed: Anthropic.Message, content: string): Param[] {
    const use = handed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    return [
      question,
      { role: 'assistant', content: handed.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content }] },
    ];
  }

  describe.each([false, true])('stream: %s', (stream) => {
    it('hands the destructive call to the approval tool after running the others; approved, it runs beside them and the loop goes on', async () => {
      const registry = new Registry();
      const gw = await rig.gateway(script, { bindings: [notes], judge, metrics: { registry } });
      const handed = await asked(gw, stream);

      expect(handed.stop_reason).toBe('tool_use');
      expect(handed.content.map((block) => block.type)).toEqual(['text', 'tool_use']);
      const use = handed.content[1] as Anthropic.ToolUseBlock;
      expect(use.name).toBe('approve_tool_call');
      expect(use.input).toEqual({ tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes a note' });
      expect(use.id).toMatch(/^toolu_del\.ap1\.[\w.-]+\.al1\./);
      expect(rig.mcp.calls.map((call) => call.name)).toEqual(['notes_open']);
      expect(rig.upstream.requests[0].body.tools?.map((tool) => tool.name)).toEqual(['notes_open', 'notes_delete']);

      const answer = await gw.anthropic.messages.create({
        ...ask,
        stream: false,
        messages: answering(handed, '{"approved": true}'),
      });

      expect(answer.content).toEqual([{ type: 'text', text: 'Done.' }]);
      expect(deletes()).toEqual([{ name: 'notes_delete', args: { id: 'groceries' } }]);
      expect(rig.upstream.requests).toHaveLength(2);
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(rig.upstream.requests[1].body.messages).toEqual([
        question,
        modelTurn,
        {
          role: 'user',
          content: [openResult, { type: 'tool_result', tool_use_id: 'toolu_del', content: 'deleted groceries' }],
        },
      ]);
      const counted = (await registry.getSingleMetric('agent_loop_approvals_total')!.get()).values.map(
        ({ labels, value }) => [labels.outcome, value],
      );
      expect(counted).toEqual([
        ['asked', 1],
        ['granted', 1],
      ]);
    });

    it('denied, the model reads why beside the turn’s other results and goes on; the call never runs', async () => {
      const gw = await rig.gateway(script, { bindings: [notes], judge });
      const handed = await asked(gw, stream);
      const answer = await gw.anthropic.messages.create({
        ...ask,
        stream: false,
        messages: answering(handed, '{"approved": false, "reason": "keep my groceries"}'),
      });

      expect(answer.content).toEqual([{ type: 'text', text: 'Done.' }]);
      expect(deletes()).toEqual([]);
      expect(rig.upstream.requests[1].refused).toBeUndefined();
      expect(rig.results(1)).toEqual([
        openResult,
        {
          type: 'tool_result',
          tool_use_id: 'toolu_del',
          content: "tool error: 'notes_delete' was not approved: keep my groceries",
          is_error: true,
        },
      ]);
    });
  });

  it('an approval answered twice is refused readably; the call does not run again', async () => {
    const gw = await rig.gateway(script, { bindings: [notes], judge });
    const handed = await asked(gw, false);
    await gw.anthropic.messages.create({ ...ask, messages: answering(handed, '{"approved": true}') });
    rig.upstream.setScript([{ text: 'Again?' }]);
    await gw.anthropic.messages.create({ ...ask, messages: answering(handed, '{"approved": true}') });

    expect(deletes()).toHaveLength(1);
    expect(rig.results(2)).toEqual([
      openResult,
      {
        type: 'tool_result',
        tool_use_id: 'toolu_del',
        content: "tool error: the approval of 'notes_delete' was already answered; the call does not run again",
        is_error: true,
      },
    ]);
  });

  it('a client that declared no approval tool cannot approve: the model reads so, never a hang, never a silent run', async () => {
    const gw = await rig.gateway(script, { bindings: [notes], judge });
    const answer = await gw.anthropic.messages.create({ model: ask.model, max_tokens: 1024, messages: [question] });

    expect(answer.content).toEqual([
      { type: 'text', text: 'On it.' },
      { type: 'text', text: 'Done.' },
    ]);
    expect(deletes()).toEqual([]);
    expect(rig.results(1)).toEqual([
      openResult,
      {
        type: 'tool_result',
        tool_use_id: 'toolu_del',
        content: "tool error: 'notes_delete' needs approval, which this client cannot give",
        is_error: true,
      },
    ]);
  });
});
