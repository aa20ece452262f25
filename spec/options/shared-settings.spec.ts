import express from 'express';
import { agentLoop, type AgentLoopMiddleware } from '../../lib/middleware';
import { listen, type Listening } from '../helpers/listen';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
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

  it('shares again what replicas hold when Redis comes back empty: a replica that starts then gets the fleet’s rules', async () => {
    const own = await startRedis();
    const logs = memoryLogger('warn');
    const url = own.url;
    const member = (name: string, logger = memoryLogger('error').logger) => {
      const loop = agentLoop({
        store: { url, prefix: 'empty-spec:' },
        replicaName: name,
        judge: { rules: [] },
        logger,
      });
      loops.push(loop);
      return loop;
    };
    try {
      // both hold the change: whichever finds the store empty first shares it again, the other then finds it there
      const [f, g] = [member('f', logs.logger), member('g', logs.logger)];
      await until(async () => Object.keys(await f.ready()).length + Object.keys(await g.ready()).length === 0);
      f.judgeRules.replace(rules as never);
      await until(() => g.judgeRules.get().rules?.length === 1, 'g has the rules');
      await own.stop();
      await own.start();
      await until(async () => Object.keys(await f.ready()).length + Object.keys(await g.ready()).length === 0);
      const h = member('h');
      await until(
        () => h.judgeRules.get().rules?.length === 1,
        'h, started after Redis came back empty, has the rules',
      );
      expect(logs.lines).toContainEqual({
        level: 'warn',
        message: "agent-loop found the store without the fleet's latest change; it shares it again",
        kind: 'judge-rules',
        replica: expect.stringMatching(/^[fg]$/),
      });
    } finally {
      await own.stop();
    }
  });
});

describe('a PATCH /admin/api/settings made right after the replicas start reaches every replica (real redis-server)', () => {
  let redis: RedisServer;
  const started: { loop: AgentLoopMiddleware; admin: Listening; lines: LogLine[] }[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(started.map(({ loop, admin }) => Promise.all([admin.close(), loop.close()])));
    await redis.stop();
  });

  async function startReplica(name: string) {
    const logs = memoryLogger('warn');
    const loop = agentLoop({
      store: { url: redis.url, prefix: 'window-spec:' },
      replicaName: name,
      logger: logs.logger,
    });
    const app = express();
    app.use(express.json());
    app.use('/admin', loop.admin({ auth: false }));
    const replica = { loop, admin: await listen(app), lines: logs.lines };
    started.push(replica);
    return replica;
  }

  it('in five rounds of three new replicas on one Redis (which holds the rounds before), each PATCHed at once', async () => {
    for (let round = 1; round <= 5; round++) {
      const fleet = await Promise.all(['a', 'b', 'c'].map((name) => startReplica(`${name}${round}`)));
      const patched = await fetch(`${fleet[round % 3].admin.url}/admin/api/settings`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ totalBudgetSec: 100 + round }),
      });
      expect(patched.status).toBe(200);
      const holds = async () => {
        const ready = await Promise.all(fleet.map(({ loop }) => loop.ready()));
        return fleet.every(
          ({ loop }, i) => loop.settings.get().totalBudgetSec === 100 + round && Object.keys(ready[i]).length === 0,
        );
      };
      await until(holds, `round ${round}: every replica has the PATCH and reached the store`);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a late read of the store must not take it back
      expect(fleet.map(({ loop }) => loop.settings.get().totalBudgetSec)).toEqual(Array(3).fill(100 + round));
      await Promise.all(fleet.map(({ loop, admin }) => Promise.all([admin.close(), loop.close()])));
      started.length = 0;
    }
  });
});
