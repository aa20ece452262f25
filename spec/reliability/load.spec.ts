import { percentile } from '../helpers/percentile';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import {
  ChildGateway,
  MB,
  SCENARIO_TIMEOUT_MS,
  eventually,
  figure,
  megabytes,
  post,
  sized,
  type Exchange,
} from './harness';
import { auditToolCallIds } from './tool-call-ids';

const LOOPS = sized(200, 1_000);
const WARM_UP = 20;

const FAULTS = [
  'transport',
  'hang',
  'first-500',
  'later-500',
  'later-html',
  'bad-args',
  'unknown-names',
  'duplicate-ids',
  'many-calls',
] as const;
type Fault = (typeof FAULTS)[number] | 'none';

/** mulberry32: the same faults in the same loops on every run */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One loop in three gets a fault, spread evenly over the kinds. */
function faultsFor(loops: number, seed = 10): Fault[] {
  const random = seeded(seed);
  return Array.from({ length: loops }, () =>
    random() < 1 / 3 ? FAULTS[Math.floor(random() * FAULTS.length)] : 'none',
  );
}

function lookups(n: number, turn: number): ScriptStep['toolCalls'] {
  return Array.from({ length: 2 }, (_, call) => ({ name: 'lookup', arguments: { loop: n, turn, call } }));
}

/** The tool calls of turn `turn` (1 or 2) of loop `n`, with its fault in turn 1 (and, for duplicate ids, in turn 2). */
function callsOf(n: number, fault: Fault, turn: number): ScriptStep['toolCalls'] {
  if (turn === 2)
    return fault === 'duplicate-ids' ? [{ id: `dup_${n}`, name: 'lookup' }, { name: 'lookup' }] : lookups(n, turn);
  switch (fault) {
    case 'transport':
      return [{ name: 'flaky' }, { name: 'lookup' }];
    case 'hang':
      return [{ name: 'hang' }, { name: 'lookup' }];
    case 'bad-args':
      return [
        { name: 'lookup', arguments: '{"loop": ' },
        { name: 'lookup', arguments: '[1, 2]' },
      ];
    case 'unknown-names':
      return [{ name: 'no_such_tool' }, { name: '' }];
    case 'duplicate-ids':
      return [
        { id: `dup_${n}`, name: 'lookup' },
        { id: `dup_${n}`, name: 'flaky' },
      ];
    case 'many-calls':
      return Array.from({ length: 200 }, (_, call) => ({ name: 'lookup', arguments: { loop: n, call } }));
    default:
      return lookups(n, turn);
  }
}

describe('reliability: load with faults', () => {
  let model: ModelServer;
  let gateway: ChildGateway;
  const faults = faultsFor(LOOPS);
  const audit = { ids: new Set<string>(), problems: new Map<string, string>() };

  beforeAll(async () => {
    model = await startModelServer((body) => {
      const n = Number(/loop (\d+)/.exec(String(body.messages[0]?.content))?.[1]);
      // The normal handler's request (the loop fell through): the client's own body, without the loop's tools.
      if (body.tools === undefined) return { content: `plain answer ${n}` };
      const found = auditToolCallIds(body.messages);
      for (const id of found.ids) audit.ids.add(`loop ${n} '${id}'`);
      for (const { id, what } of found.problems) audit.problems.set(`loop ${n} '${id}'`, what);
      const fault = faults[n] ?? 'none';
      const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
      if (turn === 1)
        return fault === 'first-500' ? { status: 500 } : { content: `turn 1 of ${n}`, toolCalls: callsOf(n, fault, 1) };
      if (turn === 2 && fault === 'later-500') return { status: 500 };
      if (turn === 2 && fault === 'later-html')
        return { raw: '<html><body>502 Bad Gateway</body></html>', status: 200 };
      if (turn === 2) return { toolCalls: callsOf(n, fault, 2) };
      return { content: `done ${n}` };
    });
    gateway = await ChildGateway.start({ upstream: model.url, toolTimeoutSec: 1 });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  function ask(n: number): Promise<Exchange> {
    return post(gateway.url, { model: 'loop-load', messages: [{ role: 'user', content: `loop ${n}` }] });
  }

  function expectAnswered(n: number, exchange: Exchange): void {
    const fault = faults[n] ?? 'none';
    expect({ n, fault, status: exchange.status }).toEqual({ n, fault, status: 200 });
    const content = JSON.parse(exchange.body).choices[0].message.content as string;
    if (fault === 'first-500') {
      expect(content).toBe(`plain answer ${n}`);
      expect(exchange.headers['x-agent-loop-stop']).toBeUndefined();
    } else if (fault === 'later-500' || fault === 'later-html') {
      expect(exchange.headers['x-agent-loop-stop']).toBe('upstream_error');
      expect(content).toMatch(new RegExp(`^turn 1 of ${n}\\n\\n`));
    } else {
      expect(exchange.headers['x-agent-loop-stop']).toBe('final');
      expect(content).toBe(`turn 1 of ${n}\n\ndone ${n}`);
    }
  }

  it(
    `${LOOPS} concurrent 3-turn loops with seeded faults: each answered, each tool call answered once, memory back`,
    async () => {
      await Promise.all(Array.from({ length: WARM_UP }, (_, i) => ask(LOOPS + i)));
      await gateway.gc();
      const before = await gateway.gc();
      audit.ids.clear();
      audit.problems.clear();

      const exchanges = await Promise.all(Array.from({ length: LOOPS }, (_, n) => ask(n)));
      exchanges.forEach((exchange, n) => expectAnswered(n, exchange));

      expect(await eventually(async () => (await gateway.stats()).trellisActive === 0, 30_000)).toBe(true);
      // Freed memory goes back to the system lazily (V8's memory reducer, the allocator): give it up to 30 s.
      const settleStarted = Date.now();
      let after = await gateway.gc();
      await eventually(async () => (after = await gateway.gc()).rss - before.rss < 30 * MB, 30_000, 1_000);
      const settledSec = Math.round((Date.now() - settleStarted) / 1000);
      const stats = await gateway.stats();
      const times = exchanges.map((exchange) => exchange.ms);
      const answered = [...audit.ids].filter((id) => !audit.problems.has(id)).length;
      figure(
        `load-with-faults: ${LOOPS} loops (${faults.filter((fault) => fault !== 'none').length} with faults), ` +
          `${exchanges.filter((e) => e.status === 200).length} x 200, p50 ${Math.round(percentile(times, 50))} ms, p99 ${Math.round(percentile(times, 99))} ms, ` +
          `rss ${megabytes(after.rss - before.rss)} (heap ${megabytes(after.heapUsed - before.heapUsed)}, ${settledSec} s after the load), tool_call_ids answered once ${answered}/${audit.ids.size}, ` +
          `unhandled ${stats.problems.unhandledRejections + stats.problems.uncaughtExceptions}`,
      );
      expect(Object.fromEntries(audit.problems)).toEqual({});
      expect(stats.problems).toEqual({
        unhandledRejections: 0,
        uncaughtExceptions: 0,
        unexpectedFailures: 0,
        warnings: 0,
      });
      expect(after.rss - before.rss).toBeLessThan(30 * MB);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
