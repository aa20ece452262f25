import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai';
import OpenAI from 'openai';
import { MAX_CONTINUATION_CHARS } from '../../lib/hand-back/continuation';
import { mcpRig } from '../e2e/mcp-gateway';
import { postRaw } from '../helpers/listen';

const notes = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'noise'],
};
const getLocation = {
  type: 'function' as const,
  function: { name: 'get_location', description: 'Where the user is.', parameters: { type: 'object', properties: {} } },
};
const IDS = 'note ids: welcome, groceries, standup';
const script = [
  { content: 'Let me look.', toolCalls: [{ id: 's1', name: 'notes_open' }] },
  { content: 'Where are you?', toolCalls: [{ id: 'loc1', name: 'get_location' }] },
  { toolCalls: [{ id: 's2', name: 'notes_read', arguments: { id: 'groceries' } }] },
  { content: 'In Berlin: buy milk, eggs, coffee beans, lemons.' },
];
/** The conversation the model read on the follow-up's first turn: the loop's earlier work is back, ids are the model's own. */
const followUpTurn = [
  { role: 'user', content: 'what should I buy here?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 's1', type: 'function', function: { name: 'notes_open', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 's1', content: IDS },
  {
    role: 'assistant',
    content: 'Let me look.\n\nWhere are you?',
    tool_calls: [{ id: 'loc1', type: 'function', function: { name: 'get_location', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'loc1', content: 'Berlin' },
];

describe('a hand-back keeps the loop’s work (sealed continuation in the call id), over a real MCP Trellis', () => {
  const rig = mcpRig();
  const question = { role: 'user' as const, content: 'what should I buy here?' };

  async function handBack(client: OpenAI) {
    const first = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [getLocation],
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    return first.choices[0].message;
  }

  it('with the official openai client: the follow-up turn reads what the loop learned, and the gate knows notes_open ran', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes] });
    const handed = await handBack(client);
    const call = handed.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toMatch(/^loc1\.al1\.[0-9a-z]+\.[\w-]+$/);
    expect(call.id.length).toBeLessThanOrEqual('loc1.al1.'.length + MAX_CONTINUATION_CHARS);
    expect(handed.content).toBe('Let me look.\n\nWhere are you?');

    const answer = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, handed, { role: 'tool', tool_call_id: call.id, content: 'Berlin' }],
      tools: [getLocation],
    });

    expect(answer.choices[0].message.content).toBe('In Berlin: buy milk, eggs, coffee beans, lemons.');
    expect(rig.model.requests).toHaveLength(4);
    expect(rig.model.requests[2].body.messages).toEqual(followUpTurn);
    expect(rig.toolTexts(3)).toEqual([IDS, 'Berlin', 'Milk, eggs, coffee beans, lemons.']);
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open', 'notes_read']);
  });

  it("with the AI SDK's client-side tools (@ai-sdk/openai-compatible): the same", async () => {
    const { client } = await rig.gateway(script, { bindings: [notes] });
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: client.baseURL, apiKey: 'client-key' });
    const tools = {
      get_location: tool({
        description: 'Where the user is.',
        inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      }),
    };
    const messages: ModelMessage[] = [question];
    const first = await generateText({ model: provider.chatModel('agent-1'), messages, tools });
    expect(first.finishReason).toBe('tool-calls');
    const [call] = first.toolCalls;
    expect(call.toolCallId).toMatch(/^loc1\.al1\./);

    messages.push(...first.response.messages, {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: 'get_location',
          output: { type: 'text', value: 'Berlin' },
        },
      ],
    });
    const second = await generateText({ model: provider.chatModel('agent-1'), messages, tools });

    expect(second.text).toBe('In Berlin: buy milk, eggs, coffee beans, lemons.');
    expect(rig.model.requests[2].body.messages).toEqual(followUpTurn);
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open', 'notes_read']);
  });

  it('restores the work for the normal handler too, when the follow-up falls through', async () => {
    const steps = [...script.slice(0, 2), { status: 500 }, { content: 'Plain answer.' }];
    const { client } = await rig.gateway(() => steps[rig.model.requests.length - 1], { bindings: [notes] });
    const handed = await handBack(client);
    const id = handed.tool_calls![0].id;
    const answer = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, handed, { role: 'tool', tool_call_id: id, content: 'Berlin' }],
      tools: [getLocation],
    });

    expect(answer.choices[0].message.content).toBe('Plain answer.');
    expect(rig.model.requests[3].headers['x-mcp-internal']).toBeUndefined();
    expect(rig.model.requests[3].body.messages).toEqual(followUpTurn);
  });

  it('hands the token back in a streamed answer too', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes] });
    const stream = await client.chat.completions.create({
      model: 'agent-1',
      messages: [question],
      tools: [getLocation],
      stream: true,
    });
    const ids: string[] = [];
    for await (const chunk of stream)
      chunk.choices[0]?.delta.tool_calls?.forEach((delta) => delta.id && ids.push(delta.id));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^loc1\.al1\.[0-9a-z]+\.[\w-]+$/);
  });

  it('never trusts a token that does not verify: its work is not restored, the id is the model’s again, a warning names it', async () => {
    const { client, lines } = await rig.gateway(script, { bindings: [notes] });
    const handed = await handBack(client);
    const id = handed.tool_calls![0].id;
    const at = id.length - 10;
    const forged = `${id.slice(0, at)}${id[at] === 'A' ? 'B' : 'A'}${id.slice(at + 1)}`;
    const tampered = { ...handed, tool_calls: [{ ...handed.tool_calls![0], id: forged }] };
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, tampered, { role: 'tool', tool_call_id: forged, content: 'Berlin' }],
      tools: [getLocation],
    });

    expect(rig.model.requests[2].body.messages).toEqual([followUpTurn[0], ...followUpTurn.slice(3)]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop ignored a continuation that does not verify',
        forged: 1,
      }),
    );
  });

  const followUp = (handed: OpenAI.ChatCompletionMessage, id = handed.tool_calls![0].id) => [
    question,
    handed,
    { role: 'tool' as const, tool_call_id: id, content: 'Berlin' },
  ];

  it('restores one copy of the work however often the client repeats its token, in one message or many', async () => {
    const { client, lines } = await rig.gateway(script, { bindings: [notes] });
    const handed = await handBack(client);
    const call = handed.tool_calls![0];
    const repeated = { ...handed, tool_calls: Array.from({ length: 50 }, () => call) };
    const copies = Array.from({ length: 50 }, () => handed);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, repeated, ...copies, { role: 'tool', tool_call_id: call.id, content: 'Berlin' }],
      tools: [getLocation],
    });

    const sent = rig.model.requests[2].body.messages;
    expect(sent.filter((m) => m.role === 'tool' && m.tool_call_id === 's1')).toHaveLength(1);
    expect(sent).toHaveLength(1 + 1 + 50 + 2 + 1);
    expect(sent.slice(-4)).toEqual(followUpTurn.slice(1));
    expect(JSON.stringify(sent)).not.toContain('.al1.');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop ignored continuations past the bound of one per hand-back',
        ignored: 99,
      }),
    );
  });

  it('does not expand a request that no binding takes: it passes on as the client sent it', async () => {
    const { client } = await rig.gateway([...script.slice(0, 2), { content: 'Plain answer.' }], { bindings: [notes] });
    const handed = await handBack(client);
    const messages = followUp(handed);
    await client.chat.completions.create({ model: 'plain-model', messages, tools: [getLocation] });

    expect(rig.model.requests[2].headers['x-mcp-internal']).toBeUndefined();
    expect(rig.model.requests[2].body.messages).toEqual(JSON.parse(JSON.stringify(messages)));
  });

  it.each([
    ['another client (another Authorization)', { apiKey: 'someone-else' }, 'agent-1'],
    ['another binding', {}, 'other-1'],
  ])('restores nothing for %s replaying the token', async (_case, as, model) => {
    const other = { ...notes, name: 'other', match: { model: 'other-*' } };
    const { client, lines } = await rig.gateway(script, { bindings: [notes, other] });
    const handed = await handBack(client);
    const replayer = new OpenAI({ baseURL: client.baseURL, apiKey: 'client-key', maxRetries: 0, ...as });
    await replayer.chat.completions.create({ model, messages: followUp(handed), tools: [getLocation] });

    expect(rig.model.requests[2].body.messages).toEqual([followUpTurn[0], ...followUpTurn.slice(3)]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop ignored a continuation that does not verify',
        forged: 1,
      }),
    );
  });

  it("keeps the loop's tool results from the client: no part of the token reads as them", async () => {
    const { client } = await rig.gateway(script, { bindings: [notes] });
    const token = (await handBack(client)).tool_calls![0].id.split('.al1.')[1];
    const readable = (part: string) => {
      try {
        return inflateRawSync(Buffer.from(part, 'base64url')).toString('latin1');
      } catch {
        return Buffer.from(part, 'base64url').toString('latin1');
      }
    };
    for (const part of token.split('.')) expect(readable(part)).not.toContain('note ids');
  });

  it.each([
    ['a string', 'x.al1.y'],
    ['an object', { id: 'x.al1.y' }],
  ])('passes a request whose tool_calls is %s on without a 500', async (_name, toolCalls) => {
    const { client } = await rig.gateway([{ content: 'ok' }], { bindings: [notes] });
    const messages = [
      question,
      { role: 'assistant', content: null, tool_calls: toolCalls },
      { role: 'user', content: 'hm' },
    ];
    const res = await postRaw(client.baseURL.replace(/\/v1$/, ''), { model: 'agent-1', messages });
    expect(res.status).toBe(200);
  });

  it.each(['tool error: the log is empty; the notebook is open', '⛔ no entry for strangers; the notebook is open'])(
    'unlocks the child after a hand-back when the parent ran well, whatever its result reads like (%s)',
    async (opened) => {
      rig.mcp.setTool({
        name: 'notes_open',
        description: 'Open the notebook.',
        handler: () => ({ content: [{ type: 'text', text: opened }] }),
      });
      const { client } = await rig.gateway(script, { bindings: [notes] });
      const handed = await handBack(client);
      const id = handed.tool_calls![0].id;
      await client.chat.completions.create({
        model: 'agent-1',
        messages: [question, handed, { role: 'tool', tool_call_id: id, content: 'Berlin' }],
        tools: [getLocation],
      });

      expect(rig.toolTexts(3)).toEqual([opened, 'Berlin', 'Milk, eggs, coffee beans, lemons.']);
      expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open', 'notes_read']);
    },
  );

  it('unlocks nothing after a hand-back when the parent failed, even once the token elided its result', async () => {
    const failure = randomBytes(15_000).toString('base64');
    rig.mcp.setTool({
      name: 'notes_open',
      description: 'Open the notebook.',
      handler: () => ({ content: [{ type: 'text', text: failure }], isError: true }),
    });
    const { client } = await rig.gateway(script, { bindings: [notes] });
    const handed = await handBack(client);
    const id = handed.tool_calls![0].id;
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, handed, { role: 'tool', tool_call_id: id, content: 'Berlin' }],
      tools: [getLocation],
    });

    expect(rig.toolTexts(3)).toEqual([
      `[earlier result of 'notes_open' elided: ${'tool error: '.length + failure.length} bytes]`,
      'Berlin',
      "⛔ 'notes_read' is locked: call 'notes_open' first.",
    ]);
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open']);
  });

  it('stays within its bound: the oldest results are elided until the token fits', async () => {
    rig.mcp.setTool({
      name: 'noise',
      description: 'Random text.',
      handler: () => ({ content: [{ type: 'text', text: randomBytes(5_000).toString('base64') }] }),
    });
    const noisy = [
      { toolCalls: [{ id: 'n1', name: 'noise', arguments: { n: 1 } }] },
      { toolCalls: [{ id: 'n2', name: 'noise', arguments: { n: 2 } }] },
      { toolCalls: [{ id: 'n3', name: 'noise', arguments: { n: 3 } }] },
      { toolCalls: [{ id: 'loc1', name: 'get_location' }] },
      { content: 'done' },
    ];
    const { client } = await rig.gateway(noisy, { bindings: [notes] });
    const handed = await handBack(client);
    const id = handed.tool_calls![0].id;
    expect(id.length).toBeLessThanOrEqual('loc1.al1.'.length + MAX_CONTINUATION_CHARS);
    await client.chat.completions.create({
      model: 'agent-1',
      messages: [question, handed, { role: 'tool', tool_call_id: id, content: 'Berlin' }],
      tools: [getLocation],
    });

    const restored = rig.toolTexts(4);
    expect(restored[0]).toBe("[earlier result of 'noise' elided: 6668 bytes]");
    expect(restored.slice(1, 3).map((text) => String(text).length)).toEqual([6668, 6668]);
    expect(restored[3]).toBe('Berlin');
  });
});
