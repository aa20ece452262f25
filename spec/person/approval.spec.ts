import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai';
import type OpenAI from 'openai';
import { Registry } from 'prom-client';
import { z } from 'zod';
import type { Judge, JudgeInput } from '../../lib/types';
import { mcpRig } from '../e2e/mcp-gateway';

type Message = OpenAI.ChatCompletionMessageParam;
type FunctionCall = OpenAI.ChatCompletionMessageFunctionToolCall;

const IDS = 'note ids: welcome, groceries, standup';
const notes = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['notes_open', 'notes_delete'] };
const destructive = {
  rules: [
    {
      surface: 'tool_call' as const,
      when: { annotation: 'destructiveHint' },
      action: 'ask' as const,
      reason: 'it deletes a note',
    },
  ],
};
const approveTool = {
  type: 'function' as const,
  function: {
    name: 'approve_tool_call',
    description: 'Ask the user to approve a tool call.',
    parameters: {
      type: 'object',
      properties: { tool: { type: 'string' }, arguments: { type: 'object' }, reason: { type: 'string' } },
    },
  },
};
const question: Message = { role: 'user', content: 'open my notes and delete the groceries' };
/** turn 1: a read-only call and a destructive one together; then the model's final word */
const script = [
  {
    content: 'On it.',
    toolCalls: [
      { id: 'c_open', name: 'notes_open' },
      { id: 'c_del', name: 'notes_delete', arguments: { id: 'groceries' } },
    ],
  },
  { content: 'Done.' },
];
const pendingTurn = [
  question,
  {
    role: 'assistant',
    content: 'On it.',
    tool_calls: [
      { id: 'c_open', type: 'function', function: { name: 'notes_open', arguments: '{}' } },
      { id: 'c_del', type: 'function', function: { name: 'notes_delete', arguments: '{"id":"groceries"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c_open', content: IDS },
];

describe('a person approves a tool call before it runs (chat completions, real MCP server, official clients)', () => {
  const rig = mcpRig();
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

  async function askedFor(client: OpenAI, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) {
    const first = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [approveTool],
      ...extra,
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    return first.choices[0].message;
  }

  const answering = (handed: OpenAI.ChatCompletionMessage, content: string): Message[] => [
    question,
    handed as Message,
    { role: 'tool', tool_call_id: handed.tool_calls![0].id, content },
  ];

  it('hands the destructive call to the approval tool after running the others; approved, it runs and the loop goes on', async () => {
    const registry = new Registry();
    const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive, metrics: { registry } });
    const handed = await askedFor(client);

    const [call] = handed.tool_calls as FunctionCall[];
    expect(handed.tool_calls).toHaveLength(1);
    expect(call.function.name).toBe('approve_tool_call');
    expect(JSON.parse(call.function.arguments)).toEqual({
      tool: 'notes_delete',
      arguments: { id: 'groceries' },
      reason: 'it deletes a note',
    });
    expect(call.id).toMatch(/^c_del\.ap1\.[\w.-]+\.al1\./);
    expect(handed.content).toBe('On it.');
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open']);
    expect((rig.model.requests[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'notes_open',
      'notes_delete',
    ]);

    const answer = await client.chat.completions.create({
      model: 'agent-1',
      messages: answering(handed, '{"approved": true}'),
      tools: [approveTool],
    });

    expect(answer.choices[0].message.content).toBe('Done.');
    expect(deletes()).toEqual([{ name: 'notes_delete', args: { id: 'groceries' } }]);
    expect(rig.model.requests).toHaveLength(2);
    expect(rig.model.requests[1].body.messages).toEqual([
      ...pendingTurn,
      { role: 'tool', tool_call_id: 'c_del', content: 'deleted groceries' },
    ]);
    const counted = (await registry.getSingleMetric('agent_loop_approvals_total')!.get()).values.map(
      ({ labels, value }) => [labels.outcome, value],
    );
    expect(counted).toEqual([
      ['asked', 1],
      ['granted', 1],
    ]);
  });

  it('with passImages, an approved call shows the next turn its images, as any other call does', async () => {
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    rig.mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note.',
      args: { id: z.string() },
      annotations: { destructiveHint: true },
      handler: () => ({
        content: [
          { type: 'text', text: 'deleted, the bin:' },
          { type: 'image', data: pixel, mimeType: 'image/png' },
        ],
      }),
    });
    const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive, passImages: true });
    const handed = await askedFor(client);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: answering(handed, '{"approved": true}'),
      tools: [approveTool],
    });

    expect(rig.model.requests[1].body.messages.slice(-2)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'c_del',
        content: 'deleted, the bin:\n[image: image/png, 68 bytes; attached to the next message]',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: "Image returned by 'notes_delete' (c_del):" },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
        ],
      },
    ]);
  });

  it('denied, the model reads why and goes on; the call never runs', async () => {
    const { client, lines } = await rig.gateway(script, { bindings: [notes], judge: destructive });
    const handed = await askedFor(client);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: answering(handed, '{"approved": false, "reason": "keep my groceries"}'),
      tools: [approveTool],
    });

    expect(deletes()).toEqual([]);
    expect(rig.toolTexts(1)).toEqual([IDS, "tool error: 'notes_delete' was not approved: keep my groceries"]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop approval denied',
        tool: 'notes_delete',
        reason: 'keep my groceries',
        binding: 'notes',
      }),
    );
  });

  it('a client that declared no approval tool cannot approve: the model reads so, never a hang, never a silent run', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive });
    const answer = await client.chat.completions.create({ model: 'agent-1', messages: [question] });

    expect(answer.choices[0].message.content).toBe('On it.\n\nDone.');
    expect(deletes()).toEqual([]);
    expect(rig.toolTexts(1)).toEqual([IDS, "tool error: 'notes_delete' needs approval, which this client cannot give"]);
  });

  it("binding requireApproval { never: { toolNames } }, in OpenAI's words, asks about every other tool, judge or not", async () => {
    const { client } = await rig.gateway(script, {
      bindings: [{ ...notes, requireApproval: { never: { toolNames: ['notes_open'] } } }],
    });
    const handed = await askedFor(client);
    expect(JSON.parse((handed.tool_calls![0] as FunctionCall).function.arguments)).toEqual({
      tool: 'notes_delete',
      arguments: { id: 'groceries' },
      reason: "binding 'notes' requires approval for 'notes_delete'",
    });
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open']);
  });

  it('arguments too long to show a person are not handed back: the model reads so', async () => {
    const long = [
      { toolCalls: [{ id: 'c_del', name: 'notes_delete', arguments: { id: 'x'.repeat(9000) } }] },
      { content: 'Too long.' },
    ];
    const { client } = await rig.gateway(long, { bindings: [notes], judge: destructive });
    const answer = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [approveTool],
    });
    expect(answer.choices[0].message.content).toBe('Too long.');
    expect(rig.toolTexts(1)).toEqual([
      "tool error: 'notes_delete' needs approval, but its arguments are too long to show a person (over 8192 bytes)",
    ]);
  });

  it('monitor mode logs the ask and lets the call run', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], judge: { ...destructive, mode: 'monitor' } });
    const answer = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [approveTool],
    });
    expect(answer.choices[0].message.content).toBe('On it.\n\nDone.');
    expect(deletes()).toHaveLength(1);
  });

  it('a custom judge may answer ask; on the approved call its input says approved', async () => {
    const inputs: JudgeInput[] = [];
    const judge: Judge = {
      async evaluate(input) {
        inputs.push(input);
        return input.tool === 'notes_delete' && input.surface === 'tool_call' && !input.approved
          ? { action: 'ask', reason: 'deleting needs a yes' }
          : { action: 'allow' };
      },
    };
    const { client } = await rig.gateway(script, { bindings: [notes], judge });
    const handed = await askedFor(client);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: answering(handed, '{"approved":true}'),
      tools: [approveTool],
    });

    expect(
      inputs.filter((input) => input.tool === 'notes_delete').map(({ surface, approved }) => [surface, approved]),
    ).toEqual([
      ['tool_call', undefined],
      ['tool_call', true],
      ['context', true],
    ]);
    expect(deletes()).toHaveLength(1);
  });

  it('streams the approval request as a normal tool call, and a streamed follow-up runs the approved call', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive });
    const stream = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [approveTool],
      stream: true,
    });
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[delta.index] ??= { arguments: '' };
        if (delta.id) calls[delta.index].id = delta.id;
        if (delta.function?.name) calls[delta.index].name = delta.function.name;
        calls[delta.index].arguments += delta.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls.map(({ name, arguments: args }) => [name, JSON.parse(args).tool])).toEqual([
      ['approve_tool_call', 'notes_delete'],
    ]);

    const handed = {
      role: 'assistant' as const,
      content: 'On it.',
      tool_calls: [
        {
          id: calls[0].id!,
          type: 'function' as const,
          function: { name: calls[0].name!, arguments: calls[0].arguments },
        },
      ],
    };
    const followUp = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, handed, { role: 'tool', tool_call_id: calls[0].id!, content: '{"approved":true}' }],
      tools: [approveTool],
      stream: true,
    });
    let text = '';
    for await (const chunk of followUp) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Done.');
    expect(deletes()).toHaveLength(1);
  });

  it('with the AI SDK (@ai-sdk/openai-compatible) declaring the approval tool: the same', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive });
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: client.baseURL, apiKey: 'client-key' });
    const tools = {
      approve_tool_call: tool({
        description: 'Ask the user to approve a tool call.',
        inputSchema: jsonSchema<{ tool: string; arguments: object; reason: string }>(
          approveTool.function.parameters as never,
        ),
      }),
    };
    const messages: ModelMessage[] = [{ role: 'user', content: 'open my notes and delete the groceries' }];
    const first = await generateText({ model: provider.chatModel('agent-1'), messages, tools });
    expect(first.finishReason).toBe('tool-calls');
    const [call] = first.toolCalls;
    expect([call.toolName, call.input]).toEqual([
      'approve_tool_call',
      { tool: 'notes_delete', arguments: { id: 'groceries' }, reason: 'it deletes a note' },
    ]);

    messages.push(...first.response.messages, {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: { type: 'json', value: { approved: true } },
        },
      ],
    });
    const second = await generateText({ model: provider.chatModel('agent-1'), messages, tools });

    expect(second.text).toBe('Done.');
    expect(deletes()).toEqual([{ name: 'notes_delete', args: { id: 'groceries' } }]);
    expect(rig.model.requests[1].body.messages).toEqual([
      ...pendingTurn,
      { role: 'tool', tool_call_id: 'c_del', content: 'deleted groceries' },
    ]);
  });

  it('asks about several calls of one turn at once; each answer decides its own call (plain text denies, no answer denies)', async () => {
    const three = [
      {
        content: null,
        toolCalls: [
          { id: 'd1', name: 'notes_delete', arguments: { id: 'groceries' } },
          { id: 'd2', name: 'notes_delete', arguments: { id: 'standup' } },
          { id: 'd3', name: 'notes_delete', arguments: { id: 'welcome' } },
        ],
      },
      { content: 'Done.' },
    ];
    const { client } = await rig.gateway(three, { bindings: [notes], judge: destructive });
    const handed = await askedFor(client);
    const [first, second, third] = handed.tool_calls!;
    expect(
      [first, second, third].map((call) => JSON.parse((call as FunctionCall).function.arguments).arguments.id),
    ).toEqual(['groceries', 'standup', 'welcome']);
    expect(third.id).toMatch(/^d3\.ap1\./);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [
        question,
        handed as Message,
        { role: 'tool', tool_call_id: first.id, content: '{"approved":true}' },
        { role: 'tool', tool_call_id: second.id, content: 'not the standup one' },
      ],
      tools: [approveTool],
    });

    expect(deletes()).toEqual([{ name: 'notes_delete', args: { id: 'groceries' } }]);
    expect(rig.toolTexts(1)).toEqual([
      'deleted groceries',
      "tool error: 'notes_delete' was not approved: not the standup one",
      "tool error: 'notes_delete' was not approved: no answer came",
    ]);
  });

  describe('an approval that cannot decide is refused readably, and the call does not run', () => {
    afterEach(() => jest.restoreAllMocks());

    it('sent twice: the second answer decides nothing', async () => {
      const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive });
      const handed = await askedFor(client);
      await client.chat.completions.create({
        model: 'agent-1',
        messages: answering(handed, '{"approved":true}'),
        tools: [approveTool],
      });
      await client.chat.completions.create({
        model: 'agent-1',
        messages: answering(handed, '{"approved":true}'),
        tools: [approveTool],
      });

      expect(deletes()).toHaveLength(1);
      expect(rig.toolTexts(2)).toEqual([
        IDS,
        "tool error: the approval of 'notes_delete' was already answered; the call does not run again",
      ]);
    });

    it('after it expired (approval.ttlSec)', async () => {
      const { client, lines } = await rig.gateway(script, {
        bindings: [notes],
        judge: destructive,
        approval: { ttlSec: 60 },
      });
      const handed = await askedFor(client);
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
      await client.chat.completions.create({
        model: 'agent-1',
        messages: answering(handed, '{"approved":true}'),
        tools: [approveTool],
      });

      expect(deletes()).toEqual([]);
      expect(rig.toolTexts(1)).toEqual([
        IDS,
        "tool error: the approval of 'notes_delete' came after it expired (approvals last 60s); the call did not run: call it again to ask anew",
      ]);
      expect(lines).toContainEqual(
        expect.objectContaining({ message: 'agent-loop approval expired', tool: 'notes_delete' }),
      );
    });

    it('for another call: its token moved onto another call id does not open', async () => {
      const { client } = await rig.gateway(script, { bindings: [notes], judge: destructive });
      const handed = await askedFor(client);
      const moved = `c_open${handed.tool_calls![0].id.slice('c_del'.length)}`;
      const tampered = { ...handed, tool_calls: [{ ...handed.tool_calls![0], id: moved }] };
      await client.chat.completions.create({
        model: 'agent-1',
        messages: answering(tampered, '{"approved":true}'),
        tools: [approveTool],
      });

      expect(deletes()).toEqual([]);
      expect(rig.model.requests[1].body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: 'On it.',
          tool_calls: [
            { id: 'c_open', type: 'function', function: { name: 'notes_delete', arguments: '{"id":"groceries"}' } },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'c_open',
          content: "tool error: the approval of 'notes_delete' is not one this gateway asked for; the call did not run",
        },
      ]);
    });
  });

  it('a later request with the settled approval in its history runs nothing again and reads what was decided', async () => {
    const { client } = await rig.gateway([...script, { content: 'Anything else?' }], {
      bindings: [notes],
      judge: destructive,
    });
    const handed = await askedFor(client);
    const answered = answering(handed, '{"approved":true}');
    const done = await client.chat.completions.create({ model: 'agent-1', messages: answered, tools: [approveTool] });
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [...answered, done.choices[0].message as Message, { role: 'user', content: 'thanks' }],
      tools: [approveTool],
    });

    expect(deletes()).toHaveLength(1);
    expect(rig.model.requests[2].body.messages).toEqual([
      ...pendingTurn,
      {
        role: 'tool',
        tool_call_id: 'c_del',
        content: "[the result of 'notes_delete' is not kept: it ran in an earlier request, after a person approved it]",
      },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'thanks' },
    ]);
  });
});
