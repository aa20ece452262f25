import fc from 'fast-check';
import { startMessagesServer, type MessagesServer, type MessagesStep } from '../../fixtures/messages-server';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { startResponsesServer, type ResponsesServer, type ResponsesStep } from '../../fixtures/responses-server';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { memoryLogger } from '../helpers/memory-logger';
import { SCENARIO_TIMEOUT_MS, figure, post, sized, type Exchange } from './harness';
import { hostileReply, type HostileReply } from './hostile-replies';
import {
  CLIENT_TOOL,
  MODEL,
  TOOLS,
  askingBody,
  clientBody,
  followUp,
  tokenEdit,
  toolsOf,
  wireText,
  type TokenEdit,
  type WireName,
} from './hostile-wires';
import { auditMessagesToolUseIds, auditResponsesCallIds, auditToolCallIds, type IdAudit } from './tool-call-ids';

const RUNS = sized(30, 1_000);
/** fixed, printed with any failure (fast-check's report), so a failing run replays */
const SEED = Number(process.env.FUZZ_SEED ?? 22);
/** longer than any answer takes: a request that waits this long is a hang */
const HANG_MS = 15_000;
const PATHS: Record<WireName, string> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
};
const WIRES: WireName[] = ['chat', 'responses', 'messages'];

/** how often `fz_lookup` ran for each `q`: an approval's call runs once at most, whatever the client sends back */
const ranFor = new Map<unknown, number>();
const trellis = localTrellis([
  {
    name: TOOLS.lookup,
    handler: (args) => {
      ranFor.set(args.q, (ranFor.get(args.q) ?? 0) + 1);
      return `found ${JSON.stringify(args)}`;
    },
  },
  { name: TOOLS.flaky, handler: () => Promise.reject(new Error('connection reset by the tool server')) },
]);
const binding = {
  name: 'fuzz',
  match: { model: 'loop-*' },
  hierarchy: [TOOLS.lookup, TOOLS.flaky],
  toolTimeoutSec: 1,
  maxTurns: 3,
};
const APPROVING = 'loop-approve';
/** a follow-up as a client writes it: the token untouched, the call answered once */
const CLEAN: TokenEdit = { how: 'none', at: 0, where: 'both', copies: 1, answered: true, stray: false };
const APPROVAL_TOOL = 'approve_tool_call';
/** every call waits for a person */
const approving = { ...binding, name: 'fuzz-approve', match: { model: APPROVING }, requireApproval: 'always' as const };

/** What the upstream answers one loop turn: scripted calls, a final text, or the run's hostile reply. */
type Call = { id: string; name: string; input: Record<string, unknown> };
type Turn = { kind: 'calls'; calls: Call[] } | { kind: 'text' } | { kind: 'hostile'; reply: HostileReply };

interface Recorded {
  headers: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** Per client request (its `x-request-id`): how many loop turns the upstream answered, and on which turn the hostile reply goes. */
interface Run {
  hostileAt?: number;
  reply?: HostileReply;
  /** the second turn calls the client's own tool: the loop hands it back, its first turn's work in the token */
  handBack?: boolean;
  /** the first turn calls `fz_lookup` with `q` the request's id: the loop asks the client to approve it */
  approval?: boolean;
}
const runs = new Map<string, Run & { turns: number }>();

function nextTurn(recorded: Recorded): Turn | undefined {
  const loopTurn = JSON.stringify(recorded.body.tools ?? null).includes(`"${TOOLS.lookup}"`);
  const run = runs.get(String(recorded.headers['x-request-id']));
  if (!loopTurn || !run) return undefined;
  run.turns++;
  if (run.turns === run.hostileAt && run.reply) return { kind: 'hostile', reply: run.reply };
  const id = String(recorded.headers['x-request-id']);
  // three calls, two under one id, past the cap of two: the loop gives one a new id and runs the first two
  if (run.turns === 1 && run.approval)
    return { kind: 'calls', calls: [{ id: `fza_${id}`, name: TOOLS.lookup, input: { q: id } }] };
  if (run.turns === 1)
    return {
      kind: 'calls',
      calls: [`fzc_${id}_a`, `fzc_${id}_a`, `fzc_${id}_c`].map((callId, i) => ({ id: callId, ...CALLS[i] })),
    };
  return run.turns === 2 && run.handBack
    ? { kind: 'calls', calls: [{ id: `fzh_${id}`, name: CLIENT_TOOL, input: { city: 'x' } }] }
    : { kind: 'text' };
}

const CALLS = [
  { name: TOOLS.lookup, input: { q: 'a' } },
  { name: TOOLS.flaky, input: {} },
  { name: TOOLS.lookup, input: { q: 'c' } },
];

const chatStep = (turn: Turn | undefined, streamed: boolean): ScriptStep => {
  if (!turn) return { content: 'the normal handler' };
  if (turn.kind === 'hostile') return { raw: streamed ? turn.reply.sse : turn.reply.json, status: turn.reply.status };
  if (turn.kind === 'text') return { content: 'done' };
  return { toolCalls: turn.calls.map(({ id, name, input }) => ({ id, name, arguments: input })) };
};
const responsesStep = (turn: Turn | undefined, streamed: boolean): ResponsesStep => {
  if (!turn) return { text: 'the normal handler' };
  if (turn.kind === 'hostile') return { raw: streamed ? turn.reply.sse : turn.reply.json, status: turn.reply.status };
  if (turn.kind === 'text') return { text: 'done' };
  return { calls: turn.calls.map(({ id, name, input }) => ({ callId: id, name, arguments: input })) };
};
const messagesStep = (turn: Turn | undefined, streamed: boolean): MessagesStep => {
  if (!turn) return { text: 'the normal handler' };
  if (turn.kind === 'hostile') return { raw: streamed ? turn.reply.sse : turn.reply.json, status: turn.reply.status };
  if (turn.kind === 'text') return { text: 'done' };
  return { toolUses: turn.calls.map(({ id, name, input }) => ({ id, name, input })) };
};

/** The call ids of a loop turn's request, audited in the wire's shape. */
function audit(wire: WireName, body: Record<string, unknown>): IdAudit {
  if (wire === 'chat') return auditToolCallIds(Array.isArray(body.messages) ? body.messages : []);
  if (wire === 'responses') return auditResponsesCallIds(Array.isArray(body.input) ? body.input : []);
  return auditMessagesToolUseIds(Array.isArray(body.messages) ? body.messages : []);
}

const ID_KEYS = new Set(['id', 'call_id', 'tool_call_id', 'tool_use_id', 'approval_request_id']);

/** Every id the client's own body names (as the audits read ids: `String(id)`): its history is the client's to pair. */
function clientIds(raw: string): Set<string> {
  const ids = new Set<string>();
  const walk = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 50) return;
    for (const [key, inner] of Object.entries(value)) {
      // a forged hand-back or approval token comes off the id: the model's own id before it stays the client's
      if (ID_KEYS.has(key)) ids.add(String(inner)).add(String(inner).split(/\.a[lp]1\./)[0]);
      walk(inner, depth + 1);
    }
  };
  try {
    walk(JSON.parse(raw), 0);
  } catch {
    // not JSON: it names no id
  }
  // a call or an answer of the client's without an id reads as `undefined`
  if (ids.size > 0 || /"type":|"role":/.test(raw)) ids.add('undefined');
  return ids;
}

const dataLines = (body: string) =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
type Fields = Record<string, unknown>;

/**
 * The calls of an answer (hand-backs) in their wire's shape: string ids (the loop's, carrying its work) and names;
 * the arguments go on as the model wrote them, as they would without the loop.
 */
function expectCalls(wire: WireName, calls: Fields[]): void {
  for (const call of calls) {
    if (wire === 'chat') expect([typeof call.id, typeof (call.function as Fields)?.name]).toEqual(['string', 'string']);
    if (wire === 'responses') expect([typeof call.call_id, typeof call.name]).toEqual(['string', 'string']);
    if (wire === 'messages') expect([typeof call.id, typeof call.name]).toEqual(['string', 'string']);
  }
}

/** A whole answer of the wire: its `object`/`type`, a string id and model, its items, and its calls well-formed. */
function expectAnswer(wire: WireName, answer: Fields): void {
  expect([typeof answer.id, typeof answer.model]).toEqual(['string', 'string']);
  if (wire === 'chat') {
    expect(answer.object).toBe('chat.completion');
    const { message } = (answer.choices as Fields[])[0] as { message: Fields };
    expect(message.role).toBe('assistant');
    // text, none, or the model's own content parts passed on as they came
    expect(
      message.content === null ||
        typeof message.content === 'string' ||
        (Array.isArray(message.content) && message.content.every(isObject)),
    ).toBe(true);
    expectCalls(wire, (message.tool_calls as Fields[] | undefined) ?? []);
  }
  if (wire === 'responses') {
    expect(answer.object).toBe('response');
    expect((answer.output as unknown[]).every(isObject)).toBe(true);
    expectCalls(
      wire,
      (answer.output as Fields[]).filter((item) => item.type === 'function_call'),
    );
  }
  if (wire === 'messages') {
    expect([answer.type, answer.role]).toEqual(['message', 'assistant']);
    expect((answer.content as unknown[]).every(isObject)).toBe(true);
    expectCalls(
      wire,
      (answer.content as Fields[]).filter((block) => block.type === 'tool_use'),
    );
  }
}

/**
 * An answer the loop wrote (a JSON one with `x-agent-loop-stop`, a stream the loop opened, `x-accel-buffering: no`)
 * is one of its wire: a whole JSON object, or a stream that ends as the wire's do.
 */
function expectWellFormed(wire: WireName, exchange: Exchange): void {
  const streamed = exchange.headers['content-type']?.startsWith('text/event-stream') === true;
  if (!streamed)
    return exchange.headers['x-agent-loop-stop'] === undefined
      ? undefined
      : expectAnswer(wire, JSON.parse(exchange.body));
  if (exchange.headers['x-accel-buffering'] !== 'no') return;
  const data = dataLines(exchange.body);
  if (wire === 'chat') expect(data.at(-1)).toBe('[DONE]');
  const events = data.filter((line) => line !== '[DONE]').map((line) => JSON.parse(line) as Fields);
  if (wire === 'responses') {
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)?.type).toBe('response.completed');
    expectAnswer(wire, events.at(-1)!.response as Fields);
  }
  if (wire === 'messages') {
    expect([events[0]?.type, events.at(-1)?.type]).toEqual(['message_start', 'message_stop']);
    expectCalls(
      wire,
      events.flatMap((event) =>
        event.type === 'content_block_start' && (event.content_block as Fields)?.type === 'tool_use'
          ? [event.content_block as Fields]
          : [],
      ),
    );
  }
}

describe('reliability: hostile bodies and replies on every front door', () => {
  const upstreams: { chat?: ModelServer; responses?: ResponsesServer; messages?: MessagesServer } = {};
  const gateways = {} as Record<WireName, Listening>;
  const { logger, lines } = memoryLogger('error');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const statuses = new Map<string, number>();
  let sent = 0;

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    upstreams.chat = await startModelServer((body, recorded) => chatStep(nextTurn(recorded), body.stream === true));
    upstreams.responses = await startResponsesServer((recorded) =>
      responsesStep(nextTurn(recorded), recorded.body.stream === true),
    );
    upstreams.messages = await startMessagesServer((body, recorded) =>
      messagesStep(nextTurn(recorded), body.stream === true),
    );
    for (const wire of WIRES)
      gateways[wire] = await listen(
        buildGateway(upstreams[wire]!.url, { logger, trellis, bindings: [approving, binding], maxToolCallsPerTurn: 2 })
          .app,
      );
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    figure(
      `hostile-wires: ${sent} requests over 3 wires, ${[...statuses]
        .sort()
        .map(([key, n]) => `${n} x ${key}`)
        .join(', ')}`,
    );
    for (const wire of WIRES) await gateways[wire]?.close();
    for (const wire of WIRES) await upstreams[wire]?.close();
  });

  /** Sends `raw` to `wire`'s front door, then checks the answer and every loop turn the upstream received for it. */
  async function send(wire: WireName, raw: string, run: Run = {}): Promise<Exchange> {
    const id = `fz${++sent}`;
    runs.set(id, { turns: 0, ...run });
    const upstream = upstreams[wire]!;
    const before = upstream.requests.length;
    const theirs = clientIds(raw);
    let exchange: Exchange;
    try {
      exchange = await post(gateways[wire].url, undefined, {
        raw,
        path: PATHS[wire],
        signal: AbortSignal.timeout(HANG_MS),
        headers: { 'x-request-id': id, 'anthropic-version': '2023-06-01', 'x-api-key': 'client-key' },
      });
      const by =
        exchange.headers['x-agent-loop-stop'] ??
        (exchange.headers['x-accel-buffering'] === 'no' ? 'stream' : undefined);
      const key = `${wire} ${exchange.status}${by ? ` ${String(by)}` : ''}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      expect(exchange.status).toBeLessThan(500);
      expectWellFormed(wire, exchange);
      for (const request of (upstream.requests as Recorded[]).slice(before)) {
        if (request.headers['x-request-id'] !== id) continue;
        // the client's own history is the client's: only ids the loop or the model brought must pair
        const problems = audit(wire, request.body).problems.filter((problem) => !theirs.has(problem.id));
        expect(problems).toEqual([]);
      }
    } finally {
      runs.delete(id);
    }
    expect(lines.filter((line) => String(line.message).includes('failed unexpectedly'))).toEqual([]);
    expect(unhandled).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    return exchange;
  }

  it.each(WIRES)(
    `${RUNS} hostile client bodies on %s, JSON and streaming: never a 5xx, a hang or a crash; every call the loop made answered once`,
    async (wire) => {
      await fc.assert(
        fc.asyncProperty(clientBody(wire), async (body) => {
          await send(wire, wireText(body));
        }),
        { numRuns: RUNS, seed: SEED },
      );
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each(WIRES)(
    `${RUNS} hostile upstream replies on %s, on the first turn or a later one, JSON and streaming: a well-formed answer or a fall-through`,
    async (wire) => {
      await fc.assert(
        fc.asyncProperty(
          hostileReply(wire),
          fc.constantFrom(1, 2),
          fc.boolean(),
          async (reply, hostileAt, streamed) => {
            const raw = JSON.stringify(askingBody(wire, `question ${MODEL}`, streamed));
            await send(wire, raw, { hostileAt, reply });
          },
        ),
        { numRuns: RUNS, seed: SEED },
      );
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each(WIRES)(
    `${RUNS} follow-ups to a real hand-back on %s with its token forged, cut, stripped, repeated, unanswered or beside strays: never a 5xx; every call answered once`,
    async (wire) => {
      let restored = 0;
      await fc.assert(
        fc.asyncProperty(tokenEdit, fc.boolean(), async (edit, streamed) => {
          const question = `question ${MODEL}`;
          const first = await send(wire, JSON.stringify(askingBody(wire, question, false)), { handBack: true });
          expect(first.headers['x-agent-loop-stop']).toBe('final');
          const body = followUp(wire, question, JSON.parse(first.body), edit, streamed);
          const before = upstreams[wire]!.requests.length;
          await send(wire, wireText(body));
          const asked = upstreams[wire]!.requests[before] as Recorded | undefined;
          // the token as the loop wrote it opens: the loop's first turn comes back before the hand-back
          if (edit.how === 'none' && edit.copies === 1 && edit.answered && !edit.stray) {
            expect(JSON.stringify(asked?.body)).toMatch(/fzc_fz\d+_a/);
            restored++;
          }
        }),
        { numRuns: RUNS, seed: SEED, examples: [[CLEAN, false]] },
      );
      expect(restored).toBeGreaterThan(0);
    },
    SCENARIO_TIMEOUT_MS,
  );

  const approvalAnswer = fc.record({
    text: fc.oneof(
      fc.constantFrom(
        '{"approved":true}',
        '{"approved":false,"reason":"keep it"}',
        '{"approved":"yes"}',
        'yes',
        '',
        '{"approved":true,"arguments":{"q":"other"}}',
      ),
      fc.anything({ maxDepth: 1 }),
    ),
    approve: fc.oneof(fc.constantFrom<unknown>(true, false), fc.anything({ maxDepth: 1 })),
  });

  it.each(WIRES)(
    `${RUNS} answers to a real approval request on %s, forged, cut, repeated, replayed or of any shape: never a 5xx; the call runs once at most`,
    async (wire) => {
      let asked = 0;
      let approved = 0;
      await fc.assert(
        fc.asyncProperty(tokenEdit, approvalAnswer, fc.boolean(), async (edit, { text, approve }, streamed) => {
          const question = `question ${APPROVING}`;
          const body = { ...askingBody(wire, question, false), model: APPROVING, tools: toolsOf(wire, APPROVAL_TOOL) };
          const id = `fz${sent + 1}`;
          const first = await send(wire, JSON.stringify(body), { approval: true });
          expect([first.headers['x-agent-loop-stop'], ranFor.get(id)]).toEqual(['final', undefined]);
          asked++;
          const answering = { model: APPROVING, tool: APPROVAL_TOOL, text, approve };
          const follow = wireText(followUp(wire, question, JSON.parse(first.body), edit, streamed, answering));
          // the same yes twice: the second must not run the call again
          await send(wire, follow);
          await send(wire, follow);
          expect(ranFor.get(id) ?? 0).toBeLessThanOrEqual(1);
          // the yes as the loop asked for it runs the call, once
          const yes = wire === 'responses' ? approve === true : text === '{"approved":true}';
          if (yes && edit.how === 'none' && edit.copies === 1 && edit.answered && !edit.stray) {
            expect(ranFor.get(id)).toBe(1);
            approved++;
          }
        }),
        // the first run answers yes as the loop asked: the property must see an approval run
        { numRuns: RUNS, seed: SEED, examples: [[CLEAN, { text: '{"approved":true}', approve: true }, false]] },
      );
      expect([asked, approved > 0]).toEqual([RUNS, true]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
