import { agentLoop, type AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/store-contract';

const rules = [{ surface: 'tool_call', tool: 'rm', action: 'block', reason: 'never' }];

describe('settings and judge rules shared by a fleet through the store (real redis-server)', () => {
  let redis: RedisServer;
  const loops: AgentLoopMiddleware[] = [];
  const replica = (name: string, logger = memoryLogger('error').logger) => {
    const loop = agentLoop({
      store: { url: redis.url, prefix: 'shared-spec:' },
      replicaName: name,
      judge: { rules: [] },
      logger,
    });
    loops.push(loop);
    return loop;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(loops.map((loop) => loop.close()));
    await redis.stop();
  });

  it('applies a change made on one replica on the others; a replica that starts later joins with them, logged once', async () => {
    const [a, b] = [replica('a'), replica('b')];
    await until(
      async () => Object.keys(await a.ready()).length === 0 && Object.keys(await b.ready()).length === 0,
      'both reach the store',
    );
    a.settings.update({ totalBudgetSec: 77, keyBudget: { tokens: 500, windowSec: 60 } });
    await until(() => b.settings.get().totalBudgetSec === 77, 'b has the new settings');
    expect(b.settings.get().keyBudget).toEqual({ tokens: 500, windowSec: 60 });
    b.judgeRules.replace(rules as never);
    await until(() => a.judgeRules.get().rules?.length === 1, 'a has the new rules');
    a.settings.update({ keyBudget: null });
    await until(() => b.settings.get().keyBudget === undefined, 'b has the budget lifted');

    const late = memoryLogger('info');
    const c = replica('c', late.logger);
    await until(
      () => c.settings.get().totalBudgetSec === 77 && c.judgeRules.get().rules?.length === 1,
      'c joined with the fleet’s settings',
    );
    expect(late.lines.filter((line) => line.message === 'agent-loop settings from the store')).toEqual([
      { level: 'info', message: 'agent-loop settings from the store', replica: 'c', settings: true, judgeRules: true },
    ]);
    expect(late.lines).toContainEqual(
      expect.objectContaining({ message: 'agent-loop settings changed', source: 'the store' }),
    );
  });

  it('says store in ready() while Redis is away, keeps the settings it has, and shares again once it is back', async () => {
    const [d, e] = [replica('d'), replica('e')];
    await until(
      async () => Object.keys(await d.ready()).length === 0 && Object.keys(await e.ready()).length === 0,
      'both reach the store',
    );
    d.settings.update({ totalBudgetSec: 55 });
    await until(() => e.settings.get().totalBudgetSec === 55, 'e hears d');
    await redis.stop();
    await until(async () => (await d.ready()).store !== undefined, 'store down in ready()');
    expect((await d.ready()).store).toMatch(new RegExp(`^redis://127\\.0\\.0\\.1:${redis.port}: `));
    expect(e.settings.get().totalBudgetSec).toBe(55);
    await redis.start();
    await until(
      async () => Object.keys(await d.ready()).length === 0 && Object.keys(await e.ready()).length === 0,
      'both back',
    );
    d.settings.update({ defaultMaxTurns: 9 });
    await until(() => e.settings.get().defaultMaxTurns === 9, 'e hears d again');
  });
});
