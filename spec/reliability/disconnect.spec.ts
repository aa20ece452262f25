import { setMaxListeners } from 'node:events';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { ChildGateway, SCENARIO_TIMEOUT_MS, delay, eventually, figure, post, type GatewayStats } from './harness';

const CLIENTS = 200;
/** How long each call of a storm loop takes by itself: the slow tool, and the odd loops' first model call. */
const CALL_MS = 6_000;
/**
 * A call sent just before the abort may reach its server a little after it on a loaded machine. A loop that was not
 * cancelled starts its next call only once its current one ends, CALL_MS after it began: half that is a bound that
 * tells the two apart however slow the machine is.
 */
const SETTLE_MS = CALL_MS / 2;

const timers = (stats: GatewayStats) => stats.handles.Timeout ?? 0;

describe('reliability: disconnect storm', () => {
  let model: ModelServer;
  let gateway: ChildGateway;
  const upstreamStarts: number[] = [];

  beforeAll(async () => {
    // A storm loop calls tools on every turn (it needs five slow rounds to end, at maxTurns): it is still running when
    // the clients go away however long the storm takes to start. Turn 1: odd loops think for CALL_MS (aborted inside
    // the model call), even ones answer at once (aborted inside the slow tool). A warm-up loop looks up once, then answers.
    model = await startModelServer((body) => {
      upstreamStarts.push(Date.now());
      const question = String(body.messages[0]?.content);
      const n = Number(/loop (\d+)/.exec(question)?.[1]);
      const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
      if (question.startsWith('warm')) return turn === 1 ? { toolCalls: [{ name: 'lookup' }] } : { content: 'done' };
      return {
        delayMs: turn === 1 && n % 2 ? CALL_MS : 0,
        content: `turn ${turn}`,
        toolCalls: [{ name: 'slow' }, { name: 'lookup' }],
      };
    });
    gateway = await ChildGateway.start({ upstream: model.url, slowToolMs: CALL_MS, toolTimeoutSec: 30 });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  const ask = (n: number, signal?: AbortSignal, question = 'loop') =>
    post(
      gateway.url,
      { model: 'loop-storm', stream: n % 4 < 2, messages: [{ role: 'user', content: `${question} ${n}` }] },
      { signal },
    );

  it(
    `${CLIENTS} clients abort mid-loop: no model or Trellis call starts after the abort + ${SETTLE_MS} ms, in-flight work and timers back to idle`,
    async () => {
      const warmUp = await Promise.all(Array.from({ length: 20 }, (_, n) => ask(n, undefined, 'warm up')));
      expect(warmUp.map((exchange) => exchange.status)).toEqual(Array(20).fill(200));
      expect(await eventually(async () => (await gateway.stats()).inFlight.requested === 0, 10_000)).toBe(true);
      const idle = await gateway.stats();

      upstreamStarts.length = 0;
      const storm = new AbortController();
      setMaxListeners(CLIENTS + 1, storm.signal);
      const clients = Array.from({ length: CLIENTS }, (_, n) =>
        ask(n, storm.signal).then(
          () => 'answered',
          () => 'aborted',
        ),
      );
      expect(await eventually(async () => upstreamStarts.length >= CLIENTS, 60_000, 20)).toBe(true);
      await delay(200);
      const busy = await gateway.stats();
      const abortedAt = Date.now();
      storm.abort();
      expect(await Promise.all(clients)).toEqual(Array(CLIENTS).fill('aborted'));

      await delay(SETTLE_MS);
      const settledAt = Date.now();
      const settled = await gateway.stats();
      // Long enough for a call that was not cancelled to end and its loop's next call to start.
      await delay(CALL_MS + 1_000);
      const later = await gateway.stats();
      const lateModelCalls = upstreamStarts.filter((at) => at > settledAt).length;
      const lateTrellisCalls = later.trellisStarts - settled.trellisStarts;

      figure(
        `disconnect-storm: ${CLIENTS} clients aborted mid-loop (${busy.trellisActive} tool calls running, the odd loops in a model call); ` +
          `after abort + ${SETTLE_MS} ms: ${lateModelCalls} model calls and ${lateTrellisCalls} Trellis calls started, ` +
          `in flight ${settled.inFlight.served} served / ${settled.inFlight.requested} requested / ${settled.trellisActive} tool calls (${(CALL_MS + 1_000) / 1_000} s later ${later.inFlight.served} / ${later.inFlight.requested} / ${later.trellisActive}), ` +
          `timers ${timers(settled)} (idle ${timers(idle)}, busy ${timers(busy)})`,
      );
      expect(settledAt - abortedAt).toBeGreaterThanOrEqual(SETTLE_MS);
      expect({ lateModelCalls, lateTrellisCalls }).toEqual({ lateModelCalls: 0, lateTrellisCalls: 0 });
      // Printed at abort + SETTLE_MS above; asserted a little later, as the machine is shared.
      expect(later.trellisActive).toBe(0);
      expect(later.inFlight).toEqual({ served: 0, requested: 0 });
      expect(timers(later)).toBeLessThanOrEqual(timers(idle));
      expect(later.problems).toEqual({
        unhandledRejections: 0,
        uncaughtExceptions: 0,
        unexpectedFailures: 0,
        warnings: 0,
      });
    },
    SCENARIO_TIMEOUT_MS,
  );
});
