import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { ChildGateway, SCENARIO_TIMEOUT_MS, figure, post } from './harness';

const EVIL = 'a'.repeat(40) + '!';

describe('reliability: a catastrophic judge regex', () => {
  let model: ModelServer;
  let gateway: ChildGateway;

  beforeAll(async () => {
    model = await startModelServer((body) =>
      body.messages.some((m) => m.role === 'tool')
        ? { content: 'checked' }
        : { toolCalls: [{ name: 'lookup', arguments: { q: EVIL } }] },
    );
    gateway = await ChildGateway.start({
      upstream: model.url,
      judgeRules: [
        { surface: 'tool_call', when: { argument: 'q', matches: '(a+)+$' }, action: 'block', reason: 'a run of a' },
        { surface: 'context', when: { content: '(a+)+$' }, action: 'block', reason: 'a run of a' },
      ],
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  it(
    "`(a+)+$` on 'a' x 40 + '!' (a tool argument and a tool result): the event loop never stalls",
    async () => {
      await gateway.resetPeaks();
      const exchange = await post(gateway.url, {
        model: 'loop-regex',
        messages: [{ role: 'user', content: 'look it up' }],
      });
      const { loopDelayMaxMs } = await gateway.stats();
      const seen = model.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')?.content;
      figure(
        `catastrophic-regex: (a+)+$ on 'a' x 40 + '!' on both judge surfaces: answered in ${Math.round(exchange.ms)} ms, event loop held up ${Math.round(loopDelayMaxMs)} ms at most`,
      );
      expect(exchange.status).toBe(200);
      expect(exchange.headers['x-agent-loop-blocked']).toBe('0');
      expect(seen).toBe(`found {"q":"${EVIL}"}`);
      expect(loopDelayMaxMs).toBeLessThan(1_000);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
