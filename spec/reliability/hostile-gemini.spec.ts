import fc from 'fast-check';
import {
  startGeminiServer,
  type GeminiRequest,
  type GeminiServer,
  type GeminiStep,
} from '../../fixtures/gemini-server';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { memoryLogger } from '../helpers/memory-logger';
import { SCENARIO_TIMEOUT_MS, figure, post, sized, type Exchange } from './harness';
import { askingGemini, geminiFollowUp, hostileGeminiReply } from './hostile-gemini';
import type { HostileReply } from './hostile-replies';
import { CLIENT_TOOL, MODEL, TOOLS, tokenEdit, wireText, type TokenEdit } from './hostile-wires';
import { auditGeminiCalls } from './tool-call-ids';

/** The Gemini front door under the hostile-wires scenario: hostile upstream replies, id audits, follow-ups. */
const RUNS = sized(30, 1_000);
const SEED = Number(process.env.FUZZ_SEED ?? 22);
const HANG_MS = 15_000;
const NUMBER_FINISH: HostileReply = {
  status: 200,
  json: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 0 }] }),
  sse: '',
};
const CLEAN: TokenEdit = { how: 'none', at: 0, where: 'both', copies: 1, answered: true, stray: false };

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
const APPROVAL_TOOL = 'approve_tool_call';
/** every call waits for a person */
const approving = { ...binding, name: 'fuzz-approve', match: { model: APPROVING }, requireApproval: 'always' as const };

interface Run {
  turns: number;
  hostileAt?: number;
  reply?: HostileReply;
  handBack?: boolean;
  /** the first turn calls `fz_lookup` with `q` the request's id: the loop asks the client to approve it */
  approval?: boolean;
}
const runs = new Map<string, Run>();

/** A loop turn (the binding's tools offered): three parallel calls past the cap of two, a hand-back, or the hostile reply. */
function nextStep(recorded: GeminiRequest): GeminiStep {
  const run = runs.get(String(recorded.headers['x-request-id']));
  if (!run || !JSON.stringify(recorded.body.tools ?? null).includes(`"${TOOLS.lookup}"`))
    return { text: 'the normal handler' };
  run.turns++;
  if (run.turns === run.hostileAt && run.reply)
    return { raw: run.reply[streams(recorded) ? 'sse' : 'json'], status: run.reply.status };
  const id = String(recorded.headers['x-request-id']);
  if (run.turns === 1 && run.approval) return { calls: [{ name: TOOLS.lookup, args: { q: id } }] };
  if (run.turns === 1)
    return {
      calls: [
        { name: TOOLS.lookup, args: { q: 'a' } },
        { name: TOOLS.flaky, args: {} },
        { name: TOOLS.lookup, args: { q: 'c' } },
      ],
    };
  return run.turns === 2 && run.handBack ? { calls: [{ name: CLIENT_TOOL, args: { city: 'x' } }] } : { text: 'done' };
}
const streams = (recorded: GeminiRequest) => recorded.path.includes(':streamGenerateContent');

/** A content as JSON, its calls' ids aside: the loop puts a handed-back content back as the model sent it, without the id the client saw. */
const withoutIds = (content: unknown) =>
  JSON.stringify(content, (key, value: unknown) =>
    key === 'functionCall' && isObject(value) ? { ...value, id: undefined } : value,
  );

/** The client's functionResponse parts (as JSON) answering an id none of its functionCalls has: its strays. */
function strays(contents: unknown[]): Set<string> {
  const parts = contents.flatMap((content) => (isObject(content) && Array.isArray(content.parts) ? content.parts : []));
  const called = new Set(
    parts.map((part) => (isObject(part) && isObject(part.functionCall) ? part.functionCall.id : undefined)),
  );
  return new Set(
    parts
      .filter((part) => isObject(part) && isObject(part.functionResponse) && !called.has(part.functionResponse.id))
      .map((part) => JSON.stringify(part)),
  );
}

/** Contents without the client's strays (a content of strays alone dropped): the loop passes them on where they were, the client's to pair, as on the other wires. */
const withoutStrays = (contents: GeminiRequest['body']['contents'], stray: Set<string>) =>
  contents
    .map((content) => ({ ...content, parts: content.parts.filter((part) => !stray.has(JSON.stringify(part))) }))
    .filter((content, i) => content.parts.length > 0 || contents[i].parts.length === 0);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A `GenerateContentResponse` the loop wrote: one candidate whose parts are objects; the last with its finishReason
 * and, on a stream (whose last chunk is the loop's own), the usage summed as numbers or none. A JSON answer is shaped
 * like the last reply, as on the other wires: its usageMetadata is the sum where turns reported any, else theirs.
 */
function expectResponse(response: unknown, last: boolean, streamed: boolean): void {
  expect(isObject(response)).toBe(true);
  const { candidates, usageMetadata } = response as Record<string, unknown>;
  if (!last && candidates === undefined) return;
  const [candidate] = candidates as Record<string, unknown>[];
  const parts = (candidate.content as Record<string, unknown> | undefined)?.parts ?? [];
  expect(Array.isArray(parts) && parts.every(isObject)).toBe(true);
  if (!last) return;
  expect(typeof candidate.finishReason).toBe('string');
  if (streamed && usageMetadata !== undefined)
    expect(Object.values(usageMetadata as object).every((count) => typeof count === 'number')).toBe(true);
}

function expectWellFormed(exchange: Exchange): void {
  if (exchange.headers['content-type']?.startsWith('text/event-stream') !== true) {
    if (exchange.headers['x-agent-loop-stop'] !== undefined) expectResponse(JSON.parse(exchange.body), true, false);
    return;
  }
  if (exchange.headers['x-accel-buffering'] !== 'no') return;
  const chunks = exchange.body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
  expect(chunks.length).toBeGreaterThan(0);
  chunks.forEach((chunk, i) => expectResponse(chunk, i === chunks.length - 1, true));
}

describe('reliability: hostile replies and follow-ups on the Gemini front door', () => {
  let upstream: GeminiServer;
  let gateway: Listening;
  const { logger, lines } = memoryLogger('error');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const statuses = new Map<string, number>();
  let sent = 0;

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    upstream = await startGeminiServer((_body, recorded) => nextStep(recorded));
    gateway = await listen(
      buildGateway(upstream.url, { logger, trellis, bindings: [approving, binding], maxToolCallsPerTurn: 2 }).app,
    );
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    figure(
      `hostile-gemini: ${sent} requests, ${[...statuses]
        .sort()
        .map(([key, n]) => `${n} x ${key}`)
        .join(', ')}`,
    );
    await gateway?.close();
    await upstream?.close();
  });

  /** Sends `raw`, then checks the answer and the pairing of every call in each loop turn the upstream received for it. */
  async function send(
    raw: string,
    streamed: boolean,
    run: Omit<Run, 'turns'> = {},
    model: string = MODEL,
  ): Promise<Exchange> {
    const id = `fzg${++sent}`;
    runs.set(id, { turns: 0, ...run });
    const before = upstream.requests.length;
    const theirs = (JSON.parse(raw) as { contents?: unknown[] }).contents ?? [];
    const clientContents = new Set(theirs.map(withoutIds));
    const stray = strays(theirs);
    let exchange: Exchange;
    try {
      exchange = await post(gateway.url, undefined, {
        raw,
        path: `/v1beta/models/${model}:${streamed ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        signal: AbortSignal.timeout(HANG_MS),
        headers: { 'x-request-id': id, 'x-goog-api-key': 'client-key' },
      });
      const by =
        exchange.headers['x-agent-loop-stop'] ??
        (exchange.headers['x-accel-buffering'] === 'no' ? 'stream' : undefined);
      const key = `${exchange.status}${by ? ` ${String(by)}` : ''}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      expect(exchange.status).toBeLessThan(500);
      expectWellFormed(exchange);
      for (const request of upstream.requests.slice(before)) {
        if (request.headers['x-request-id'] !== id) continue;
        const { contents } = request.body;
        // the client's own history is the client's to pair: only calls the loop or the model brought must
        const problems = auditGeminiCalls(withoutStrays(contents, stray)).problems.filter(
          ({ at }) => !clientContents.has(withoutIds(contents[at])),
        );
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

  it('the audit finds a call unanswered, answered twice, out of order, under another id, or an answer without its call', () => {
    const call = (name: string, id?: string) => ({ functionCall: { name, args: {}, ...(id ? { id } : {}) } });
    const answer = (name: string) => ({ functionResponse: { name, response: { output: 'x' } } });
    const question = { role: 'user', parts: [{ text: 'q' }] };
    const turn = (calls: object[], answers: object[]) => [
      question,
      { role: 'model', parts: calls },
      { role: 'user', parts: answers },
    ];
    const whats = (contents: unknown[]) => auditGeminiCalls(contents).problems.map(({ what }) => what);
    expect(whats(turn([call('a'), call('b')], [answer('a'), answer('b')]))).toEqual([]);
    expect(whats(turn([call('a'), call('b')], [answer('b'), answer('a')]))).toHaveLength(2);
    expect(whats(turn([call('a')], [answer('a'), answer('a')]))).toEqual(['1 calls, 2 answers']);
    expect(whats(turn([call('a', 'x')], [answer('a')]))).toEqual(['answered out of order by 2:a']);
    expect(whats([question, { role: 'model', parts: [call('a')] }])).toEqual(['not answered']);
    expect(whats([question, { role: 'user', parts: [answer('a')] }])).toEqual(['answered, but not called before']);
  });

  it(
    `${RUNS} hostile Gemini replies, on the first turn or a later one, JSON and streaming: a well-formed answer or a fall-through`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileGeminiReply,
          fc.constantFrom(1, 2),
          fc.boolean(),
          async (reply, hostileAt, streamed) => {
            await send(JSON.stringify(askingGemini(`question ${MODEL}`)), streamed, { hostileAt, reply });
          },
        ),
        // a finishReason that is not the API's enum string: the loop's answer says STOP, never the model's 0
        { numRuns: RUNS, seed: SEED, examples: [[NUMBER_FINISH, 1, false]] },
      );
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `${RUNS} follow-ups to a real Gemini hand-back with its id forged, cut, stripped, repeated, unanswered or beside strays: never a 5xx; every call answered once, in order`,
    async () => {
      let restored = 0;
      await fc.assert(
        fc.asyncProperty(tokenEdit, fc.boolean(), async (edit, streamed) => {
          const question = `question ${MODEL}`;
          const first = await send(JSON.stringify(askingGemini(question)), false, { handBack: true });
          expect(first.headers['x-agent-loop-stop']).toBe('final');
          const before = upstream.requests.length;
          await send(wireText(geminiFollowUp(question, JSON.parse(first.body), edit)), streamed);
          const asked = upstream.requests[before];
          if (edit.how === 'none' && edit.copies === 1 && edit.answered && !edit.stray) {
            // the loop's first turn comes back before the hand-back, as the model sent it: the upstream takes it
            expect(JSON.stringify(asked?.body)).toContain('found {\\"q\\":\\"a\\"}');
            expect(asked?.refused).toBeUndefined();
            restored++;
          }
        }),
        { numRuns: RUNS, seed: SEED, examples: [[CLEAN, false]] },
      );
      expect(restored).toBeGreaterThan(0);
    },
    SCENARIO_TIMEOUT_MS,
  );

  const approvalAnswer = fc.oneof(
    fc.constantFrom<unknown>(
      '{"approved":true}',
      { approved: true },
      '{"approved":false,"reason":"keep it"}',
      { approved: 'yes' },
      'yes',
      '',
      { approved: true, arguments: { q: 'other' } },
    ),
    fc.anything({ maxDepth: 1 }),
  );

  it(
    `${RUNS} answers to a real Gemini approval request, forged, cut, repeated, replayed or of any shape: never a 5xx; the call runs once at most`,
    async () => {
      let approved = 0;
      await fc.assert(
        fc.asyncProperty(tokenEdit, approvalAnswer, fc.boolean(), async (edit, output, streamed) => {
          const question = `question ${APPROVING}`;
          const id = `fzg${sent + 1}`;
          const asking = JSON.stringify(askingGemini(question, [APPROVAL_TOOL]));
          const first = await send(asking, false, { approval: true }, APPROVING);
          expect([first.headers['x-agent-loop-stop'], ranFor.get(id)]).toEqual(['final', undefined]);
          const follow = wireText(geminiFollowUp(question, JSON.parse(first.body), edit, output, APPROVAL_TOOL));
          // the same yes twice: the second must not run the call again
          await send(follow, streamed, {}, APPROVING);
          await send(follow, streamed, {}, APPROVING);
          expect(ranFor.get(id) ?? 0).toBeLessThanOrEqual(1);
          const yes = output === '{"approved":true}' || JSON.stringify(output) === '{"approved":true}';
          if (yes && edit.how === 'none' && edit.copies === 1 && edit.answered && !edit.stray) {
            expect(ranFor.get(id)).toBe(1);
            approved++;
          }
        }),
        // the first run answers yes as the loop asked: the property must see an approval run
        // and one sends the ask twice, unanswered: the call is answered once, by the last copy
        {
          numRuns: RUNS,
          seed: SEED,
          examples: [
            [CLEAN, { approved: true }, false],
            [{ ...CLEAN, copies: 2, answered: false }, '', false],
          ],
        },
      );
      expect(approved).toBeGreaterThan(0);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
