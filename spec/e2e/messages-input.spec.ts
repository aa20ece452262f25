import type Anthropic from '@anthropic-ai/sdk';
import { startMcpV2Server, type McpV2FixtureServer } from '../../fixtures/mcp-server-v2';
import { messagesRig, type MessagesGateway } from './messages-gateway';

type Param = Anthropic.MessageParam;
const payments = { name: 'payments', match: { model: 'claude-*' }, hierarchy: 'from-trellis' as const };
const askUser: Anthropic.Tool = {
  name: 'ask_user',
  description: 'Ask the user.',
  input_schema: { type: 'object', properties: {} },
};
const ask = { model: 'claude-sonnet-4-6', max_tokens: 1024, tools: [askUser] };
const question: Param = { role: 'user', content: 'pay 5 EUR' };
const accept = (content: Record<string, unknown>) => JSON.stringify({ action: 'accept', content });

/** the client's follow-up: the handed-back message, then one tool_result per tool_use, in order */
function answering(handed: Anthropic.Message, earlier: Param[], ...answers: string[]): Param[] {
  const uses = handed.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  return [
    ...earlier,
    { role: 'assistant', content: handed.content },
    {
      role: 'user',
      content: uses.map((use, i) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: answers[i] })),
    },
  ];
}

describe('a tool asks the person over Anthropic Messages: a tool_use of ask_user out, its tool_result in (@anthropic-ai/sdk, v2-SDK server)', () => {
  const rig = messagesRig();
  let v2: McpV2FixtureServer;
  beforeEach(async () => {
    v2 = await startMcpV2Server({ asks: true });
  });
  afterEach(() => v2.close());
  const gateway = (steps: Parameters<typeof rig.gateway>[0]): Promise<MessagesGateway> =>
    rig.gateway(steps, { trellis: { mcp: { url: v2.url } }, bindings: [payments] });
  const create = (gw: MessagesGateway, stream: boolean, messages: Param[]) =>
    stream
      ? gw.anthropic.messages.stream({ ...ask, messages }).finalMessage()
      : gw.anthropic.messages.create({ ...ask, messages });

  it.each([false, true])('asks the form, then calls the tool again with the answer (stream: %s)', async (stream) => {
    const gw = await gateway([
      { toolUses: [{ id: 'toolu_pay', name: 'pay', input: { amount: 5 } }] },
      { text: 'Paid.' },
    ]);
    const handed = await create(gw, stream, [question]);
    expect(handed.stop_reason).toBe('tool_use');
    const use = handed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(use.name).toBe('ask_user');
    expect(use.id).toMatch(/^toolu_pay\.in1\./);
    expect(use.input).toMatchObject({ tool: 'pay', message: 'Pay 5 EUR?', mode: 'form' });
    expect(JSON.stringify(rig.upstream.requests[0].body.tools)).not.toContain('ask_user');

    const answer = await create(gw, stream, answering(handed, [question], accept({ confirm: true, account: 'main' })));
    expect(answer.content).toEqual([{ type: 'text', text: 'Paid.' }]);
    expect(rig.results(1)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_pay', content: 'paid 5 from main' }]);
    expect(v2.inputCalls.map((call) => call.requestState)).toEqual([undefined, 'pay:5']);
  });

  it('asks two questions together, one tool_use each; a decline reads as declined', async () => {
    const gw = await gateway([
      {
        toolUses: [
          { id: 'toolu_prof', name: 'profile' },
          { id: 'toolu_pay', name: 'pay', input: { amount: 1 } },
        ],
      },
      { text: 'ok' },
    ]);
    const handed = await gw.anthropic.messages.create({ ...ask, messages: [question] });
    const asked = handed.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(asked.map((use) => (use.input as { message: string }).message)).toEqual([
      'Your name?',
      'Your colour?',
      'Pay 1 EUR?',
    ]);
    const answers = [accept({ name: 'Ann' }), accept({ color: 'red' }), '{"action":"decline"}'];
    await gw.anthropic.messages.create({ ...ask, messages: answering(handed, [question], ...answers) });
    expect(rig.results(1).map((result) => [result.tool_use_id, result.content, result.is_error ?? false])).toEqual([
      ['toolu_prof', 'Ann likes red', false],
      ['toolu_pay', "tool error: 'pay' needed input from the user, who declined", true],
    ]);
  });

  it('asks a tool that asks again at once, before any turn, and runs it with both answers', async () => {
    const gw = await gateway([{ toolUses: [{ id: 'toolu_two', name: 'two_steps' }] }, { text: 'ok' }]);
    const handed = await gw.anthropic.messages.create({ ...ask, messages: [question] });
    const first = answering(handed, [question], accept({ word: 'x' }));
    const again = await gw.anthropic.messages.create({ ...ask, messages: first });
    const second = again.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(second.map((use) => (use.input as { message: string }).message)).toEqual(['Second word?']);
    expect(rig.upstream.requests).toHaveLength(1);
    await gw.anthropic.messages.create({ ...ask, messages: answering(again, first, accept({ word: 'y' })) });
    expect(rig.results(1)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_two', content: 'x then y' }]);
  });

  it('a tool that asks again beside calls already answered: each call gets one result, right after the model’s turn', async () => {
    const gw = await gateway([
      {
        toolUses: [
          { id: 'toolu_prof', name: 'profile' },
          { id: 'toolu_two', name: 'two_steps' },
        ],
      },
      { text: 'ok' },
    ]);
    const handed = await gw.anthropic.messages.create({ ...ask, messages: [question] });
    const first = answering(
      handed,
      [question],
      accept({ name: 'Ann' }),
      accept({ color: 'red' }),
      accept({ word: 'x' }),
    );
    const again = await gw.anthropic.messages.create({ ...ask, messages: first });
    await gw.anthropic.messages.create({ ...ask, messages: answering(again, first, accept({ word: 'y' })) });
    expect(rig.upstream.requests).toHaveLength(2);
    expect(rig.upstream.requests[1].refused).toBeUndefined();
    expect(rig.results(1).map((result) => [result.tool_use_id, result.content])).toEqual([
      ['toolu_prof', 'Ann likes red'],
      ['toolu_two', 'x then y'],
    ]);
  });
});
