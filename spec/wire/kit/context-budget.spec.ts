import { ContextBudget, elidedContent } from '../../../lib/wire/kit/context-budget';
import { TurnBody } from '../../../lib/loop/turn-body';
import type { ChatMessage } from '../../../lib/types';
import { elision as chatElision } from '../../../lib/wire/chat/elision';
import type { MessageParam } from '../../../lib/wire/messages/request';
import { elision as messagesElision } from '../../../lib/wire/messages/elision';
import { elision as responsesElision } from '../../../lib/wire/responses/elision';
import { ask, mcpRig } from '../../e2e/mcp-gateway';
import { memoryLogger } from '../../helpers/memory-logger';

const big = { name: 'big', match: { model: 'agent-*' }, hierarchy: ['big'] };
const KB60 = 60_000;
const elided = (bytes: number) => `[earlier result of 'big' elided: ${bytes} bytes]`;
const fetch = (id: string, bytes: number) => ({ toolCalls: [{ id, name: 'big', arguments: { bytes } }] });
const sizes = (texts: unknown[]) =>
  texts.map((text) => (String(text).startsWith('[') ? text : (text as string).length));

describe('the context budget (maxContextBytes), over a real MCP Trellis whose tools return 60 KB each', () => {
  const rig = mcpRig();

  it("elides this loop's oldest results, never the latest turn's, until each turn's request fits", async () => {
    const { client } = await rig.gateway(
      [fetch('b1', KB60), fetch('b2', KB60 + 1), fetch('b3', KB60 + 2), fetch('b4', KB60 + 3), { content: 'Done.' }],
      {
        bindings: [big],
        maxContextBytes: 150_000,
      },
    );
    const { data, response } = await client.chat.completions.create(ask('fetch it all')).withResponse();

    expect(data.choices[0].message.content).toBe('Done.');
    expect(response.headers.get('x-agent-loop-elided')).toBe('2');
    expect(sizes(rig.toolTexts(2))).toEqual([KB60, KB60 + 1]);
    expect(sizes(rig.toolTexts(3))).toEqual([elided(KB60), KB60 + 1, KB60 + 2]);
    expect(sizes(rig.toolTexts(4))).toEqual([elided(KB60), elided(KB60 + 1), KB60 + 2, KB60 + 3]);
    expect(rig.model.requests.map((request) => Buffer.byteLength(JSON.stringify(request.body)) <= 150_000)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(rig.model.requests[4].body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'b1',
      'b2',
      'b3',
      'b4',
    ]);
  });

  it('names the tool of a result elided turns after the call that asked for it', async () => {
    const pair = {
      toolCalls: [
        { id: 'p1', name: 'big', arguments: { bytes: KB60 } },
        { id: 'p2', name: 'big', arguments: { bytes: KB60 + 1 } },
      ],
    };
    const { client } = await rig.gateway([pair, fetch('b2', KB60 + 2), fetch('b3', KB60 + 3), { content: 'Done.' }], {
      bindings: [big],
      maxContextBytes: 150_000,
    });
    await client.chat.completions.create(ask());
    expect(sizes(rig.toolTexts(2))).toEqual([elided(KB60), KB60 + 1, KB60 + 2]);
    expect(sizes(rig.toolTexts(3))).toEqual([elided(KB60), elided(KB60 + 1), KB60 + 2, KB60 + 3]);
  });

  it("keeps the client's own history and the latest turn's result whole, and sends a request that cannot fit as it is", async () => {
    const history = [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'h1', type: 'function' as const, function: { name: 'big', arguments: '{"bytes":30000}' } }],
      },
      { role: 'tool' as const, tool_call_id: 'h1', content: 'y'.repeat(30_000) },
    ];
    const steps = [fetch('b1', KB60), { content: 'Done.' }];
    const { client, lines } = await rig.gateway(() => steps[rig.model.requests.length - 1], {
      bindings: [big],
      maxContextBytes: 50_000,
    });
    const { messages } = ask('again');
    const { response } = await client.chat.completions
      .create({ model: 'agent-1', messages: [...messages, ...history, { role: 'user', content: 'more' }] })
      .withResponse();

    expect(response.headers.get('x-agent-loop-elided')).toBe('0');
    expect(sizes(rig.toolTexts(1))).toEqual([30_000, KB60]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop context passes maxContextBytes with every earlier result elided',
        maxContextBytes: 50_000,
      }),
    );
  });

  it("elides for a streamed answer too, counted in the loop's log line", async () => {
    const { logger, lines } = memoryLogger('info');
    const { client } = await rig.gateway(
      [fetch('b1', KB60), fetch('b2', KB60 + 1), fetch('b3', KB60 + 2), { content: 'Done.' }],
      { bindings: [big], maxContextBytes: 150_000, logger },
    );
    const stream = await client.chat.completions.create({ ...ask(), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Done.');
    expect(sizes(rig.toolTexts(3))).toEqual([elided(KB60), KB60 + 1, KB60 + 2]);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'agent-loop answered', stream: true, elided: 1 }));
  });

  it('changes nothing when it is not set', async () => {
    const { client } = await rig.gateway(
      [fetch('b1', KB60), fetch('b2', KB60), fetch('b3', KB60), { content: 'Done.' }],
      { bindings: [big] },
    );
    const { response } = await client.chat.completions.create(ask()).withResponse();
    expect(response.headers.get('x-agent-loop-elided')).toBe('0');
    expect(sizes(rig.toolTexts(3))).toEqual([KB60, KB60, KB60]);
  });
});

describe('one budget for every wire, each saying where its results are', () => {
  const stats = () => ({ turns: 0, toolCalls: 0, blocked: 0, repeated: 0, elided: 0 });
  const long = 'L'.repeat(3000);
  const PLACEHOLDER = "[earlier result of 'big' elided: 3000 bytes]";

  it('replaces a result by the placeholder only when the placeholder is shorter', () => {
    expect(elidedContent(long, 'big')).toBe(PLACEHOLDER);
    expect(elidedContent('ok', 'big')).toBe('ok');
    expect(elidedContent([{ type: 'text', text: long }], undefined)).toBe(
      `[earlier result of 'unknown' elided: ${JSON.stringify([{ type: 'text', text: long }]).length} bytes]`,
    );
  });

  const chat: ChatMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'big', arguments: '{}' } },
        { id: 'b', type: 'function', function: { name: 'big', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: 'ok' },
    { role: 'tool', tool_call_id: 'b', content: long },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'big', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: long },
  ];
  const responses = [
    { type: 'message', role: 'user', content: 'go' },
    { type: 'function_call', call_id: 'a', name: 'big', arguments: '{}' },
    { type: 'function_call_output', call_id: 'a', output: 'ok' },
    { type: 'function_call', call_id: 'b', name: 'big', arguments: '{}' },
    { type: 'function_call_output', call_id: 'b', output: long },
    { type: 'function_call', call_id: 'c', name: 'big', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c', output: long },
  ];
  const messages: MessageParam[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'a', name: 'big', input: {} },
        { type: 'tool_use', id: 'b', name: 'big', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
        { type: 'tool_result', tool_use_id: 'b', content: long },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'big', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: long }] },
  ];
  const results = {
    chat: (sent: { messages: ChatMessage[] }) => sent.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    responses: (sent: { input: Record<string, unknown>[] }) =>
      sent.input.filter((item) => item.type === 'function_call_output').map((item) => item.output),
    messages: (sent: { messages: MessageParam[] }) =>
      sent.messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.content),
  };

  it.each([
    ['chat', chatElision, chat, 'messages'],
    ['responses', responsesElision, responses, 'input'],
    ['messages', messagesElision, messages, 'messages'],
  ] as const)(
    '%s: elides the long earlier result, keeps a result shorter than its placeholder and the latest turn whole, and warns naming the wire',
    (wire, elision, items, key) => {
      const { logger, lines } = memoryLogger('warn');
      const counted = stats();
      const budget = new ContextBudget<unknown>(
        new TurnBody({ model: 'agent' }, key),
        elision as never,
        1024,
        1,
        counted,
        { logger, loopId: 'loop-1' },
      );
      const sent = JSON.parse(budget.request(structuredClone([...items])).json);

      expect(results[wire](sent)).toEqual(['ok', PLACEHOLDER, long]);
      expect(counted.elided).toBe(1);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: 'agent-loop context passes maxContextBytes with every earlier result elided',
          wire,
          loopId: 'loop-1',
          maxContextBytes: 1024,
        }),
      ]);
    },
  );
});
