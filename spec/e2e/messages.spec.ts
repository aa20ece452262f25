import type Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, streamText, tool, type ModelMessage } from 'ai';
import { NOTES } from '../../fixtures/mcp-tools';
import type { MessagesStep } from '../../fixtures/messages-server';
import type { JudgeInput, Trellis } from '../../lib/types';
import { CLIENT_KEY, messagesRig, type MessagesGateway } from './messages-gateway';

const notes = {
  name: 'notes',
  match: { model: 'claude-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now', 'slow', 'fails'],
};
const ask = { model: 'claude-sonnet-4-6', max_tokens: 1024 };
const question = 'what should I buy?';

interface Outcome {
  /** every text block the client got, in order */
  texts: string[];
  stop: string | null;
  usage: { input_tokens?: number | null; output_tokens?: number | null };
}

const fromMessage = (message: Anthropic.Message): Outcome => ({
  texts: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])),
  stop: message.stop_reason,
  usage: message.usage,
});

const AI_SDK_STOPS: Record<string, string> = { stop: 'end_turn', 'tool-calls': 'tool_use', length: 'max_tokens' };

/** The four ways a client asks: the official SDK and the AI SDK, each JSON and stream. */
const clients: [string, (gw: MessagesGateway, content: string) => Promise<Outcome>][] = [
  [
    '@anthropic-ai/sdk messages.create',
    async (gw, content) =>
      fromMessage(await gw.anthropic.messages.create({ ...ask, messages: [{ role: 'user', content }] })),
  ],
  [
    '@anthropic-ai/sdk messages.stream',
    async (gw, content) =>
      fromMessage(await gw.anthropic.messages.stream({ ...ask, messages: [{ role: 'user', content }] }).finalMessage()),
  ],
  [
    'ai generateText (@ai-sdk/anthropic)',
    async (gw, content) => {
      const result = await generateText({ model: gw.aiSdk(ask.model), prompt: content, maxRetries: 0 });
      return {
        texts: result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
        stop: AI_SDK_STOPS[result.finishReason],
        usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
      };
    },
  ],
  [
    'ai streamText (@ai-sdk/anthropic)',
    async (gw, content) => {
      const result = streamText({ model: gw.aiSdk(ask.model), prompt: content, maxRetries: 0 });
      const parts = await result.content;
      const usage = await result.usage;
      return {
        texts: parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
        stop: AI_SDK_STOPS[await result.finishReason],
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
      };
    },
  ],
];

const LOCKED = "⛔ 'notes_read' is locked: call 'notes_open' first.";

describe.each(clients)('the Messages wire, driven by %s', (_client, drive) => {
  const rig = messagesRig();

  it('answers a gate refusal with an is_error tool_result, then runs the parent and the child: one Message, usage summed', async () => {
    const gw = await rig.gateway(
      [
        { text: 'Let me read it.', toolUses: [{ id: 'toolu_01read', name: 'notes_read', input: { id: 'groceries' } }] },
        { toolUses: [{ id: 'toolu_01open', name: 'notes_open' }] },
        { toolUses: [{ id: 'toolu_01read2', name: 'notes_read', input: { id: 'groceries' } }] },
        { text: 'Buy milk, eggs, coffee beans, lemons.' },
      ],
      { bindings: [notes] },
    );
    const outcome = await drive(gw, question);
    expect(outcome).toMatchObject({
      texts: ['Let me read it.', 'Buy milk, eggs, coffee beans, lemons.'],
      stop: 'end_turn',
      usage: { input_tokens: 48, output_tokens: 120 },
    });
    expect(rig.results(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01read', content: LOCKED, is_error: true },
    ]);
    expect(rig.results(3)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_01read2', content: NOTES.groceries }]);
    expect(rig.mcp.calls.map((call) => call.name)).toEqual(['notes_open', 'notes_read']);
    const [first] = rig.upstream.requests;
    expect(first.path).toBe('/v1/messages');
    expect(first.body.tools?.map((t) => t.name)).toEqual(['notes_open', 'notes_read', 'clock_now', 'slow', 'fails']);
    expect(first.body.tools?.[0]).toEqual({
      name: 'notes_open',
      description: 'Open the notebook and list the ids of its notes.',
      input_schema: expect.objectContaining({ type: 'object' }),
    });
    for (const request of rig.upstream.requests) {
      expect(request.headers['x-mcp-internal']).toBeUndefined();
      expect(request.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('runs parallel calls and answers them in one user message, in call order', async () => {
    const gw = await rig.gateway(
      [
        {
          toolUses: [
            { id: 'toolu_01a', name: 'notes_open' },
            { id: 'toolu_01b', name: 'fails' },
            { id: 'toolu_01c', name: 'nope' },
          ],
        },
        { text: 'Done.' },
      ],
      { bindings: [notes] },
    );
    expect((await drive(gw, question)).texts).toEqual(['Done.']);
    expect(rig.results(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01a', content: 'note ids: welcome, groceries, standup' },
      { type: 'tool_result', tool_use_id: 'toolu_01b', content: 'tool error: disk full', is_error: true },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01c',
        content: "tool error: unknown tool 'nope'; valid tools: notes_open, notes_read, clock_now, slow, fails",
        is_error: true,
      },
    ]);
  });

  it('answers a transport error and a timeout with their texts, and the loop goes on', async () => {
    const broken: Trellis = {
      listTools: async () => [
        { name: 'flaky', inputSchema: { type: 'object' } },
        { name: 'slow', inputSchema: { type: 'object' } },
      ],
      callTool: (name, _args, { signal }) =>
        name === 'flaky'
          ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'))
          : new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
            ),
    };
    const gw = await rig.gateway(
      [
        {
          toolUses: [
            { id: 'toolu_01f', name: 'flaky' },
            { id: 'toolu_01s', name: 'slow' },
          ],
        },
        { text: 'Both failed.' },
      ],
      {
        bindings: [
          {
            name: 'broken',
            match: { model: 'claude-*' },
            hierarchy: ['flaky', 'slow'],
            toolTimeoutSec: 1,
            trellis: broken,
          },
        ],
      },
    );
    expect((await drive(gw, question)).texts).toEqual(['Both failed.']);
    expect(rig.results(1)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01f',
        content: 'tool error: connect ECONNREFUSED 127.0.0.1:1',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01s',
        content: "tool error: 'slow' timed out after 1s",
        is_error: true,
      },
    ]);
  });

  it('ends a turn budget with the last answer and the note, stop_reason end_turn', async () => {
    const gw = await rig.gateway([{ text: 'Still looking.', toolUses: [{ name: 'clock_now' }] }], {
      bindings: [{ ...notes, maxTurns: 2 }],
    });
    const outcome = await drive(gw, question);
    expect(outcome.texts).toEqual([
      'Still looking.',
      'Still looking.',
      '[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 2).',
    ]);
    expect(outcome.stop).toBe('end_turn');
    expect(rig.upstream.requests).toHaveLength(2);
  });

  it('falls through untouched when the first turn fails: the normal handler serves the client’s own request', async () => {
    let calls = 0;
    const gw = await rig.gateway(() => (++calls === 1 ? { status: 529 } : { text: 'Plain answer.' }), {
      bindings: [notes],
    });
    expect((await drive(gw, question)).texts).toEqual(['Plain answer.']);
    const [turn, passedOn] = rig.upstream.requests;
    expect(turn.body.tools).toBeDefined();
    expect(passedOn.body.tools).toBeUndefined();
    expect(passedOn.body.messages).toEqual([{ role: 'user', content: expect.anything() }]);
    expect(passedOn.headers['x-mcp-internal']).toBeUndefined();
  });
});

/** A turn that hands back the client's own tool after the loop's own work, thinking on. */
const handBackScript: MessagesStep[] = [
  { thinking: 'Open the notebook first.', toolUses: [{ id: 'toolu_01open', name: 'notes_open' }] },
  { thinking: 'I need the location.', text: 'Where are you?', toolUses: [{ id: 'toolu_01loc', name: 'get_location' }] },
  { thinking: 'Berlin, groceries.', text: 'In Berlin: buy milk, eggs, coffee beans, lemons.' },
];
const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
const getLocation = {
  name: 'get_location',
  description: 'Where the user is.',
  input_schema: { type: 'object' as const, properties: {} },
};

describe('the Messages wire: hand-backs, continuations and thinking signatures', () => {
  const rig = messagesRig();

  /** What the model read on the follow-up's first turn: the loop's work back whole, thinking signed, ids the model's own. */
  function expectRestoredFollowUp(): void {
    const followUp = rig.upstream.requests[2];
    expect(followUp.refused).toBeUndefined();
    const messages = followUp.body.messages as {
      role: string;
      content: { type: string; id?: string; tool_use_id?: string; thinking?: string }[];
    }[];
    expect(
      messages.map((m) => [m.role, (m.content as unknown as { type: string }[]).map?.((b) => b.type) ?? 'text']),
    ).toEqual([
      ['user', expect.anything()],
      ['assistant', ['thinking', 'tool_use']],
      ['user', ['tool_result']],
      ['assistant', ['thinking', 'text', 'tool_use']],
      ['user', ['tool_result']],
    ]);
    expect(messages[3].content[2].id).toBe('toolu_01loc');
    expect(messages[4].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01loc' });
    expect(messages[1].content[0].thinking).toBe('Open the notebook first.');
  }

  it.each([false, true])(
    'official SDK (stream: %s): hands back get_location with stop_reason tool_use, and the follow-up carries the loop’s work',
    async (stream) => {
      const gw = await rig.gateway(handBackScript, { bindings: [notes] });
      const params = {
        ...ask,
        thinking,
        tools: [getLocation],
        messages: [{ role: 'user' as const, content: question }],
      };
      const first = stream
        ? await gw.anthropic.messages.stream(params).finalMessage()
        : await gw.anthropic.messages.create(params);
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content.map((block) => block.type)).toEqual(['thinking', 'thinking', 'text', 'tool_use']);
      const handed = first.content[3] as Anthropic.ToolUseBlock;
      expect(handed.id).toMatch(/^toolu_01loc\.al1\./);
      expect(handed.name).toBe('get_location');

      const next = {
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant' as const, content: first.content },
          {
            role: 'user' as const,
            content: [{ type: 'tool_result' as const, tool_use_id: handed.id, content: 'Berlin' }],
          },
        ],
      };
      const answer = stream
        ? await gw.anthropic.messages.stream(next).finalMessage()
        : await gw.anthropic.messages.create(next);
      expect(answer.content.filter((b) => b.type === 'text').map((b) => (b as Anthropic.TextBlock).text)).toEqual([
        'In Berlin: buy milk, eggs, coffee beans, lemons.',
      ]);
      expect(answer.content[0]).toMatchObject({
        type: 'thinking',
        thinking: 'Berlin, groceries.',
        signature: expect.stringMatching(/^Er/),
      });
      expect(rig.upstream.requests).toHaveLength(3);
      expectRestoredFollowUp();
      expect(
        rig.upstream.requests.every(
          (r) => r.headers['x-mcp-internal'] === undefined && r.headers.authorization === `Bearer ${CLIENT_KEY}`,
        ),
      ).toBe(true);
    },
  );

  it.each([false, true])(
    'AI SDK (stream: %s): the same hand-back and follow-up, thinking signatures round-tripping',
    async (stream) => {
      const gw = await rig.gateway(handBackScript, { bindings: [notes] });
      const model = gw.aiSdk(ask.model);
      const tools = {
        get_location: tool({
          description: 'Where the user is.',
          inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
        }),
      };
      const providerOptions = { anthropic: { thinking: { type: 'enabled' as const, budgetTokens: 1024 } } };
      const messages: ModelMessage[] = [{ role: 'user', content: question }];
      const step = async () => {
        if (!stream) return generateText({ model, messages, tools, providerOptions, maxRetries: 0 });
        const result = streamText({ model, messages, tools, providerOptions, maxRetries: 0 });
        return {
          finishReason: await result.finishReason,
          toolCalls: await result.toolCalls,
          text: await result.text,
          response: await result.response,
        };
      };
      const first = await step();
      expect(first.finishReason).toBe('tool-calls');
      const [call] = first.toolCalls;
      expect(call.toolName).toBe('get_location');
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
      const answer = await step();
      expect(answer.text).toBe('In Berlin: buy milk, eggs, coffee beans, lemons.');
      expectRestoredFollowUp();
      expect(
        rig.upstream.requests.every(
          (r) => r.headers['x-mcp-internal'] === undefined && r.headers['x-api-key'] === CLIENT_KEY,
        ),
      ).toBe(true);
    },
  );

  it('unlocks the child on the follow-up when the parent ran well, though its result reads like a refusal and is no is_error', async () => {
    rig.mcp.setTool({
      name: 'notes_open',
      description: 'Open the notebook.',
      handler: () => ({ content: [{ type: 'text', text: '⛔ none of your notes are locked' }] }),
    });
    const script: MessagesStep[] = [
      handBackScript[0],
      handBackScript[1],
      { toolUses: [{ id: 'toolu_01read', name: 'notes_read', input: { id: 'groceries' } }] },
      handBackScript[2],
    ];
    const gw = await rig.gateway(script, { bindings: [notes] });
    const params = { ...ask, tools: [getLocation], messages: [{ role: 'user' as const, content: question }] };
    const first = await gw.anthropic.messages.create(params);
    const handed = first.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    const next = {
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant' as const, content: first.content },
        {
          role: 'user' as const,
          content: [{ type: 'tool_result' as const, tool_use_id: handed.id, content: 'Berlin' }],
        },
      ],
    };
    await gw.anthropic.messages.create(next);

    const messages = rig.upstream.requests[3].body.messages as {
      content: { type: string; content?: unknown; is_error?: boolean }[];
    }[];
    expect(messages.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01read', content: NOTES.groceries },
    ]);
    expect(rig.mcp.calls.map((c) => c.name)).toEqual(['notes_open', 'notes_read']);
  });

  it('sends every turn’s thinking back with its signature: an upstream that checks them takes every turn (stream)', async () => {
    const gw = await rig.gateway(
      [
        { thinking: 'Open it.', toolUses: [{ name: 'notes_open' }] },
        { thinking: 'Read groceries.', toolUses: [{ name: 'notes_read', input: { id: 'groceries' } }] },
        { thinking: 'Answer.', text: 'Milk and eggs.' },
      ],
      { bindings: [notes] },
    );
    const message = await gw.anthropic.messages
      .stream({ ...ask, thinking, messages: [{ role: 'user', content: question }] })
      .finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'thinking', 'thinking', 'text']);
    expect(rig.upstream.requests.map((r) => r.refused)).toEqual([undefined, undefined, undefined]);
    const last = rig.upstream.requests[2].body.messages;
    expect(last[3]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'Read groceries.',
          signature: (message.content[1] as Anthropic.ThinkingBlock).signature,
        },
        expect.objectContaining({ type: 'tool_use', name: 'notes_read' }),
      ],
    });
  });

  it('forwards anthropic-beta from the client onto every turn, with no option to set', async () => {
    const gw = await rig.gateway([{ toolUses: [{ name: 'clock_now' }] }, { text: 'Now.' }], { bindings: [notes] });
    await gw.anthropic.messages.create(
      { ...ask, messages: [{ role: 'user', content: 'time?' }] },
      { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } },
    );
    expect(rig.upstream.requests.map((r) => r.headers['anthropic-beta'])).toEqual([
      'interleaved-thinking-2025-05-14',
      'interleaved-thinking-2025-05-14',
    ]);
  });

  it('hands back on the first turn without a token: the client’s copy is the model’s message, thinking first', async () => {
    const gw = await rig.gateway([handBackScript[1], handBackScript[2]], { bindings: [notes] });
    const params = { ...ask, thinking, tools: [getLocation], messages: [{ role: 'user' as const, content: question }] };
    const first = await gw.anthropic.messages.create(params);
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect((first.content[2] as Anthropic.ToolUseBlock).id).toBe('toolu_01loc');
    const answer = await gw.anthropic.messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01loc', content: 'Berlin' }] },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(rig.upstream.requests.map((r) => r.refused)).toEqual([undefined, undefined]);
  });

  it('drops a token that does not verify: its ids cut back to the model’s, its work not restored, a warning logged', async () => {
    const gw = await rig.gateway(handBackScript, { bindings: [notes] });
    const params = { ...ask, tools: [getLocation], messages: [{ role: 'user' as const, content: question }] };
    const first = await gw.anthropic.messages.create(params);
    const handed = first.content.at(-1) as Anthropic.ToolUseBlock;
    const forged = `${handed.id.slice(0, -4)}AAAA`;
    const content = first.content.map((block) => (block.type === 'tool_use' ? { ...block, id: forged } : block));
    await gw.anthropic.messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: forged, content: 'Berlin' }] },
      ],
    });
    const followUp = rig.upstream.requests[2];
    expect(followUp.refused).toBeUndefined();
    expect(followUp.body.messages).toHaveLength(3);
    expect(JSON.stringify(followUp.body.messages)).not.toContain('.al1.');
    expect(gw.lines).toContainEqual(
      expect.objectContaining({ message: 'agent-loop ignored a continuation that does not verify', forged: 1 }),
    );
  });

  it('says how the loop went in the x-agent-loop-* headers of a JSON answer', async () => {
    const gw = await rig.gateway([{ toolUses: [{ name: 'notes_open' }] }, { text: 'Three notes.' }], {
      bindings: [notes],
    });
    const { response } = await gw.anthropic.messages
      .create({ ...ask, messages: [{ role: 'user', content: question }] })
      .withResponse();
    expect(
      Object.fromEntries(
        ['x-agent-loop-turns', 'x-agent-loop-tool-calls', 'x-agent-loop-stop'].map((name) => [
          name,
          response.headers.get(name),
        ]),
      ),
    ).toEqual({ 'x-agent-loop-turns': '2', 'x-agent-loop-tool-calls': '1', 'x-agent-loop-stop': 'final' });
    expect(response.headers.get('x-agent-loop-id')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('runs only maxToolCallsPerTurn calls and sends back an assistant message listing only those (the upstream refuses an unanswered tool_use)', async () => {
    const gw = await rig.gateway(
      [
        {
          thinking: 'Both.',
          toolUses: [
            { id: 'toolu_01one', name: 'notes_open' },
            { id: 'toolu_01two', name: 'clock_now' },
          ],
        },
        { text: 'Done.' },
      ],
      { bindings: [notes], maxToolCallsPerTurn: 1 },
    );
    await gw.anthropic.messages.create({ ...ask, thinking, messages: [{ role: 'user', content: question }] });
    const [, second] = rig.upstream.requests;
    expect(second.refused).toBeUndefined();
    expect(second.body.messages[1].content).toEqual([
      expect.objectContaining({ type: 'thinking' }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_01one' }),
    ]);
    expect(rig.results(1).map((result) => result.tool_use_id)).toEqual(['toolu_01one']);
  });

  it('keeps each turn within maxContextBytes: the loop’s oldest result elided, every tool_use still answered', async () => {
    const gw = await rig.gateway(
      [
        { toolUses: [{ id: 'toolu_01big1', name: 'big', input: { bytes: 6000 } }] },
        { toolUses: [{ id: 'toolu_01big2', name: 'big', input: { bytes: 6000 } }] },
        { text: 'Big.' },
      ],
      {
        bindings: [{ ...notes, hierarchy: ['big'] }],
        maxContextBytes: 10_000,
      },
    );
    const { response } = await gw.anthropic.messages
      .create({ ...ask, messages: [{ role: 'user', content: question }] })
      .withResponse();
    expect(response.headers.get('x-agent-loop-elided')).toBe('1');
    const third = rig.upstream.requests[2];
    expect(third.refused).toBeUndefined();
    expect(rig.results(2)[0].content).toBe('x'.repeat(6000));
    expect((third.body.messages[2].content as { content: unknown }[])[0].content).toBe(
      "[earlier result of 'big' elided: 6000 bytes]",
    );
  });

  it('answers a judge block with its text and is_error; the judge reads the Messages conversation and the wire', async () => {
    const inputs: JudgeInput[] = [];
    const judge = {
      async evaluate(input: JudgeInput) {
        inputs.push(structuredClone(input));
        return input.tool === 'clock_now'
          ? { action: 'block' as const, reason: 'no clocks here' }
          : { action: 'allow' as const };
      },
    };
    const gw = await rig.gateway(
      [{ text: 'Checking.', toolUses: [{ id: 'toolu_01t', name: 'clock_now' }] }, { text: 'Blocked, sorry.' }],
      { bindings: [notes], judge },
    );
    const { response } = await gw.anthropic.messages
      .create({ ...ask, messages: [{ role: 'user', content: 'time?' }] })
      .withResponse();
    expect(rig.results(1)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01t',
        content: 'tool error: blocked by policy: no clocks here',
        is_error: true,
      },
    ]);
    expect(response.headers.get('x-agent-loop-blocked')).toBe('1');
    expect(inputs[0]).toMatchObject({ surface: 'tool_call', wire: 'messages', tool: 'clock_now' });
    expect(inputs[0].messages).toEqual([
      { role: 'user', content: 'time?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01t', name: 'clock_now', input: {} },
        ],
      },
    ]);
  });
});
