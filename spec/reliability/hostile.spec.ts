import fc from 'fast-check';
import { completion } from '../../lib/testing/chat';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { ChildGateway, MB, SCENARIO_TIMEOUT_MS, figure, megabytes, post, sized, type Exchange } from './harness';

const RUNS = sized(150, 2_000);
/** what one turn may read: the default at full size, less in CI (above the 10 MB reply below) */
const MAX_REPLY_BYTES = sized(16 * MB, 32 * MB);
/** longer than any answer takes: a run that waits this long is a hang */
const HANG_MS = 30_000;

const USER = { role: 'user', content: 'hi' };
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A large value that fast-check reports by its name, not its megabytes. */
function named<T extends object>(name: string, value: T): T {
  return Object.assign(value, { [fc.toStringMethod]: () => name });
}

/** A client body on the wire: a few are huge, and named. */
type Wire = { raw: string };

/** The named bodies: each also runs on its own (below), so none depends on the draw. */
const GIANTS: [string, Wire][] = [
  [
    '__proto__ at the top and in a message',
    {
      raw: '{"__proto__": {"polluted": true}, "model": "loop-hostile", "messages": [{"role": "user", "content": "hi", "__proto__": {"role": "tool"}}]}',
    },
  ],
  [
    'constructor.prototype',
    {
      raw: '{"model": "loop-hostile", "messages": [{"role": "user", "content": "hi"}], "constructor": {"prototype": {"polluted": true}}}',
    },
  ],
  [
    'content nested 5,000 deep',
    { raw: `{"model": "loop-hostile", "messages": [{"role": "user", "content": ${deep(5_000)}}]}` },
  ],
  [
    'tools nested 5,000 deep',
    { raw: `{"model": "loop-hostile", "messages": [{"role": "user", "content": "hi"}], "tools": ${deep(5_000)}}` },
  ],
  [
    'a 5 MB string',
    { raw: JSON.stringify({ model: 'loop-hostile', messages: [{ role: 'user', content: 'a'.repeat(5 * MB) }] }) },
  ],
  [
    'a 5 MB two-byte string, streamed',
    {
      raw: JSON.stringify({
        model: 'loop-hostile',
        stream: true,
        messages: [{ role: 'user', content: 'é'.repeat(2.5 * MB) }],
      }),
    },
  ],
  [
    'an 11 MB body (over the limit)',
    { raw: JSON.stringify({ model: 'loop-hostile', messages: [{ role: 'user', content: 'a'.repeat(11 * MB) }] }) },
  ],
  ['n: 3', { raw: JSON.stringify({ model: 'loop-hostile', n: 3, messages: [USER] }) }],
  [
    'a history with tool_calls of the wrong shape',
    {
      raw: JSON.stringify({
        model: 'loop-hostile',
        messages: [
          { role: 'assistant', tool_calls: { id: 'a' } },
          { role: 'assistant', tool_calls: [null, 'x', { id: 'b' }] },
          { role: 'tool', tool_call_id: 'b', content: 'ok' },
          USER,
        ],
      }),
    },
  ],
  ['cut short', { raw: '{"model": "loop-hostile", "messages": [{"role": "user", "content": "hi"}' }],
];

/** Client bodies as raw bytes: malformed JSON, wrong types, `__proto__`, depth 5,000, 5 MB strings, `n > 1`. */
const clientBody: fc.Arbitrary<Wire> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 200 }).map((raw) => ({ raw })) },
  { weight: 3, arbitrary: fc.jsonValue().map((value) => ({ raw: JSON.stringify(value) })) },
  {
    weight: 10,
    arbitrary: fc
      .record(
        {
          model: fc.oneof(fc.constantFrom('loop-hostile', 'loop-*', 'other'), fc.anything()),
          messages: fc.oneof(
            fc.constant([USER]),
            fc.anything(),
            fc.array(
              fc.oneof(
                fc.constant(USER),
                fc.record(
                  {
                    role: fc.oneof(fc.constantFrom('user', 'assistant', 'tool', 'system'), fc.anything()),
                    content: fc.anything(),
                    tool_calls: fc.anything(),
                    tool_call_id: fc.anything(),
                  },
                  { requiredKeys: ['role'] },
                ),
                fc.anything(),
              ),
              { maxLength: 5 },
            ),
          ),
          stream: fc.oneof(fc.boolean(), fc.anything()),
          stream_options: fc.anything(),
          tools: fc.oneof(fc.constant([{ type: 'function', function: { name: 'lookup' } }]), fc.anything()),
          n: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.anything()),
        },
        { requiredKeys: [] },
      )
      .map((body) => ({ raw: JSON.stringify(body) })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...GIANTS.map(([name, wire]) => named(name, wire))),
  },
);

const toolCall = fc.record(
  {
    id: fc.oneof(fc.string(), fc.anything()),
    type: fc.anything(),
    function: fc.oneof(
      fc.anything(),
      fc.record(
        {
          name: fc.oneof(fc.constantFrom('lookup', 'flaky', '', 'nope'), fc.anything()),
          arguments: fc.oneof(fc.constantFrom('{}', '{"a":', '[]', 'null'), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const toolCalls = fc.oneof(
  fc.anything(),
  fc.array(fc.oneof(toolCall, fc.anything()), { maxLength: 4 }),
  fc.array(toolCall, { minLength: 200, maxLength: 200 }),
);
const message = fc.oneof(
  fc.anything(),
  fc.record(
    { role: fc.anything(), content: fc.oneof(fc.string(), fc.anything()), tool_calls: toolCalls },
    { requiredKeys: [] },
  ),
);
const choice = fc.oneof(
  fc.anything(),
  fc.record(
    {
      index: fc.anything(),
      message,
      finish_reason: fc.anything(),
      delta: fc.record({ content: fc.anything(), tool_calls: toolCalls }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  ),
);
const replyObject = fc.record(
  {
    id: fc.anything(),
    choices: fc.oneof(fc.constant(null), fc.constant([]), fc.array(choice, { maxLength: 3 }), fc.anything()),
    usage: fc.anything(),
    error: fc.anything(),
  },
  { requiredKeys: [] },
);

const tenMegabytes = named('10 MB of content', {
  raw: JSON.stringify(completion({ content: 'c'.repeat(10 * MB) }, 'loop-hostile')),
});

const reply = (message: unknown) => ({
  raw: JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'loop-hostile',
    choices: [{ index: 0, message, finish_reason: 'stop' }],
  }),
});
const calling = (tool_calls: unknown) => reply({ role: 'assistant', content: null, tool_calls });

/** The named replies: each runs on its own, first turn and later, JSON and streaming. */
const REPLIES: [string, ScriptStep][] = [
  ['no choices', { raw: '{}' }],
  ['choices: null', { raw: '{"choices": null}' }],
  ['choices: []', { raw: '{"choices": []}' }],
  ['choices: [null]', { raw: '{"choices": [null]}' }],
  ['message: null', reply(null)],
  ['message: a string', reply('hello')],
  ['content: a number', reply({ role: 'assistant', content: 5 })],
  ['content: text parts', reply({ role: 'assistant', content: [{ type: 'text', text: 'in parts' }] })],
  ['tool_calls: null', calling(null)],
  ['tool_calls: a string', calling('lookup')],
  ['tool_calls: [null, 5, "x"]', calling([null, 5, 'x'])],
  [
    'tool_calls: numbers for id and name',
    calling([{ id: 5, type: 'function', function: { name: 7, arguments: '{}' } }]),
  ],
  [
    'tool_calls: arguments as an object',
    calling([{ id: 'a', type: 'function', function: { name: 'lookup', arguments: { q: 1 } } }]),
  ],
  ['tool_calls: no function', calling([{ id: 'a', type: 'function' }])],
  [
    'tool_calls: 200 in one turn',
    calling(
      Array.from({ length: 200 }, (_, i) => ({
        id: `c${i}`,
        type: 'function',
        function: { name: 'lookup', arguments: '{}' },
      })),
    ),
  ],
  ['10 MB of content', tenMegabytes],
  ['SSE when not asked', { raw: 'data: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n' }],
  ['an HTML page with 200', { raw: '<html>bad gateway</html>' }],
  ['an empty body', { raw: '' }],
  [
    'a stream frame with tool_calls: [null]',
    { raw: 'data: {"choices":[{"delta":{"tool_calls":[null]}}]}\n\ndata: [DONE]\n\n' },
  ],
  [
    'a stream frame with a tool call at index 4294967294',
    {
      raw: 'data: {"choices":[{"delta":{"tool_calls":[{"index":4294967294,"id":"a","function":{"name":"lookup","arguments":"{}"}}]}}]}\n\ndata: [DONE]\n\n',
    },
  ],
  [
    'a stream frame with a tool call at index "__proto__"',
    {
      raw: 'data: {"choices":[{"delta":{"tool_calls":[{"index":"__proto__","id":"a","function":{"name":"lookup","arguments":"{}"}}]}}]}\n\ndata: [DONE]\n\n',
    },
  ],
  [
    'a stream frame with a numeric call id',
    {
      raw: 'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":5,"function":{"name":"lookup","arguments":"{}"}}]}}]}\n\ndata: [DONE]\n\n',
    },
  ],
];

/**
 * Replies that never end, written until the gateway cuts them (no memory spent on this side): a later turn's only,
 * as on a first turn the loop hands the request to the normal handler, which streams the upstream's reply on.
 */
const WITHOUT_END: [string, ScriptStep][] = [
  [
    'a JSON body without end',
    { endless: '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"' },
  ],
  ['one SSE line without end', { endless: 'data: {"choices":[{"index":0,"delta":{"content":"' }],
];

/** Model replies: missing or null choices, tool_calls of every wrong shape, 10 MB content, SSE when not asked, errors. */
const modelReply: fc.Arbitrary<ScriptStep> = fc.oneof(
  { weight: 8, arbitrary: replyObject.map((reply) => ({ raw: JSON.stringify(reply) })) },
  {
    weight: 4,
    arbitrary: fc.array(replyObject, { maxLength: 4 }).map((chunks) => ({
      raw: `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`,
    })),
  },
  { weight: 2, arbitrary: fc.record({ raw: fc.string(), status: fc.constantFrom(200, 400, 404, 429, 500, 502, 503) }) },
  { weight: 1, arbitrary: fc.constantFrom(...REPLIES.map(([name, step]) => named(name, step))) },
);

describe('reliability: hostile bodies and replies', () => {
  let model: ModelServer;
  let gateway: ChildGateway;
  const hostile = new Map<string, { step: ScriptStep; firstTurn: boolean }>();
  const statuses = { client: new Map<number, number>(), reply: new Map<number, number>() };

  beforeAll(async () => {
    model = await startModelServer((body) => {
      // The normal handler's request (the loop fell through or never ran): the client's own body, without the loop's tools.
      if (body.tools === undefined || !Array.isArray(body.messages)) return { content: 'the normal handler' };
      const run = hostile.get(String((body.messages[0] as { content?: unknown } | undefined)?.content));
      const turn = body.messages.filter((m) => m?.role === 'assistant').length + 1;
      if (!run) return turn === 1 ? { toolCalls: [{ name: 'lookup' }] } : { content: 'final' };
      if (turn === (run.firstTurn ? 1 : 2)) return run.step;
      return turn === 1 ? { toolCalls: [{ name: 'lookup' }] } : { content: 'final' };
    });
    gateway = await ChildGateway.start({ upstream: model.url, maxReplyBytes: MAX_REPLY_BYTES });
  });

  afterAll(async () => {
    const count = (map: Map<number, number>) =>
      [...map]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n} x ${status}`)
        .join(', ');
    figure(
      `hostile-bodies: ${RUNS} runs and ${GIANTS.length} named bodies, ${count(statuses.client)}, 0 x 5xx, 0 hangs`,
    );
    figure(
      `hostile-replies: ${RUNS} runs and ${REPLIES.length} named replies x 4, ${count(statuses.reply)}, 0 x 5xx, 0 hangs`,
    );
    await gateway?.stop();
    await model?.close();
  });

  /** Sends `raw`; an answer of the loop's must be well-formed: a chat completion with text, or a stream that ends. */
  async function send(raw: string, seen: Map<number, number>): Promise<Exchange> {
    const exchange = await post(gateway.url, undefined, { raw, signal: AbortSignal.timeout(HANG_MS) });
    seen.set(exchange.status, (seen.get(exchange.status) ?? 0) + 1);
    expect(exchange.status).toBeLessThan(500);
    if (exchange.headers['content-type']?.startsWith('text/event-stream'))
      expect(exchange.body.endsWith('data: [DONE]\n\n')).toBe(true);
    if (exchange.headers['x-agent-loop-stop']) {
      const { message } = JSON.parse(exchange.body).choices[0];
      expect(message.role).toBe('assistant');
      expect(['string', 'object']).toContain(typeof message.content);
    }
    return exchange;
  }

  async function sendReply(step: ScriptStep, firstTurn: boolean, stream: boolean): Promise<Exchange> {
    const key = `hostile reply ${hostile.size}-${Math.random()}`;
    hostile.set(key, { step, firstTurn });
    try {
      return await send(
        JSON.stringify({ model: 'loop-hostile', stream, messages: [{ role: 'user', content: key }] }),
        statuses.reply,
      );
    } finally {
      hostile.delete(key);
    }
  }

  it(
    `${RUNS} hostile client bodies: never a 5xx, never a hang, nothing polluted`,
    async () => {
      await fc.assert(
        fc.asyncProperty(clientBody, async ({ raw }) => void (await send(raw, statuses.client))),
        { numRuns: RUNS, seed: 10 },
      );
      const stats = await gateway.stats();
      expect(stats.failures).toEqual([]);
      expect(stats.problems).toEqual({
        unhandledRejections: 0,
        uncaughtExceptions: 0,
        unexpectedFailures: 0,
        warnings: 0,
      });
      expect(stats.prototypeKeys).toEqual(stats.prototypeKeysAtStart);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each(GIANTS)(
    '%s: no 5xx, no unexpected failure',
    async (_name, { raw }) => {
      await send(raw, statuses.client);
      expect((await gateway.stats()).failures).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it('n > 1 falls through to the normal handler: the loop cannot run n loops at once', async () => {
    const seenBefore = model.requests.length;
    const exchange = await post(gateway.url, { model: 'loop-hostile', n: 2, messages: [USER] });
    expect(JSON.parse(exchange.body).choices[0].message.content).toBe('the normal handler');
    expect(model.requests.slice(seenBefore).map((request) => request.body.tools)).toEqual([undefined]);
  });

  it.each(REPLIES)(
    'a reply with %s, on each turn, to JSON and streaming clients: no 5xx, a well-formed answer',
    async (_name, step) => {
      for (const firstTurn of [true, false])
        for (const stream of [false, true]) await sendReply(step, firstTurn, stream);
      const stats = await gateway.stats();
      expect(stats.prototypeKeys).toEqual(stats.prototypeKeysAtStart);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each(WITHOUT_END)(
    '%s on a later turn, to JSON and streaming clients: the turn fails at maxReplyBytes, no crash',
    async (name, step) => {
      const before = await gateway.resetPeaks();
      for (const stream of [false, true]) {
        const exchange = await sendReply(step, false, stream);
        expect(exchange.body).toContain(
          `the model call of turn 2 failed (the model's reply is longer than maxReplyBytes = ${MAX_REPLY_BYTES})`,
        );
      }
      const stats = await gateway.stats();
      figure(
        `hostile-replies: ${name}, cut at maxReplyBytes ${megabytes(MAX_REPLY_BYTES).slice(1)} for JSON and streaming clients, peak rss ${megabytes(stats.peakRss - before.rss)}`,
      );
      expect(stats.problems).toEqual({
        unhandledRejections: 0,
        uncaughtExceptions: 0,
        unexpectedFailures: 0,
        warnings: 0,
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `${RUNS} hostile model replies, on the first turn or a later one, to JSON and streaming clients: never a 5xx, never a hang`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          modelReply,
          fc.boolean(),
          fc.boolean(),
          async (step, firstTurn, stream) => void (await sendReply(step, firstTurn, stream)),
        ),
        { numRuns: RUNS, seed: 10 },
      );
      const stats = await gateway.stats();
      expect(stats.problems).toEqual({
        unhandledRejections: 0,
        uncaughtExceptions: 0,
        unexpectedFailures: 0,
        warnings: 0,
      });
    },
    SCENARIO_TIMEOUT_MS,
  );
});
