import { percentile } from '../helpers/percentile';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { ChildGateway, SCENARIO_TIMEOUT_MS, figure, post } from './harness';

const LIMIT = 50;
const CLIENTS = 200;

describe('reliability: overload', () => {
  let model: ModelServer;
  let gateway: ChildGateway;

  beforeAll(async () => {
    // The loop's turns call the slow tool once, then answer; the normal handler's request (no tools) answers at once.
    model = await startModelServer((body) => {
      if (body.tools === undefined) return { content: 'the normal handler' };
      return body.messages.some((m) => m.role === 'tool') ? { content: 'the loop' } : { toolCalls: [{ name: 'slow' }] };
    });
    gateway = await ChildGateway.start({
      upstream: model.url,
      maxConcurrentLoops: LIMIT,
      slowToolMs: 1_000,
      toolTimeoutSec: 30,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  const ask = () => post(gateway.url, { model: 'loop-overload', messages: [{ role: 'user', content: 'hi' }] });

  it(
    `${CLIENTS} concurrent loops past maxConcurrentLoops ${LIMIT}: the rest go to the normal handler marked overloaded, none waits`,
    async () => {
      const exchanges = await Promise.all(Array.from({ length: CLIENTS }, ask));
      const looped = exchanges.filter((e) => e.headers['x-agent-loop-stop'] === 'final');
      const overloaded = exchanges.filter((e) => e.headers['x-agent-loop-stop'] === 'overloaded');
      const times = (list: typeof exchanges) => list.map((e) => e.ms);
      figure(
        `overload: ${CLIENTS} concurrent loops, maxConcurrentLoops ${LIMIT}: ${looped.length} looped (p50 ${Math.round(percentile(times(looped), 50))} ms), ` +
          `${overloaded.length} passed to the normal handler with x-agent-loop-stop: overloaded (p50 ${Math.round(percentile(times(overloaded), 50))} ms), ` +
          `${exchanges.filter((e) => e.status === 200).length} x 200`,
      );
      expect(exchanges.map((e) => e.status)).toEqual(Array(CLIENTS).fill(200));
      expect(looped.length + overloaded.length).toBe(CLIENTS);
      expect(looped.length).toBeGreaterThanOrEqual(1);
      expect(overloaded.length).toBeGreaterThanOrEqual(1);
      // Each loop holds its slot through its one slow call: never more of them at once than the limit. (How many
      // loop in all depends on how fast the wave arrives: on a loaded machine a slot may free before the last client.)
      expect((await gateway.stats()).peakTrellisActive).toBeLessThanOrEqual(LIMIT);
      expect(new Set(overloaded.map((e) => JSON.parse(e.body).choices[0].message.content))).toEqual(
        new Set(['the normal handler']),
      );
      expect(new Set(looped.map((e) => JSON.parse(e.body).choices[0].message.content))).toEqual(new Set(['the loop']));
      // The slots come back: a request after the wave loops again.
      expect((await ask()).headers['x-agent-loop-stop']).toBe('final');
    },
    SCENARIO_TIMEOUT_MS,
  );
});
