import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { agentLoop, type AgentLoopMiddleware } from '../../lib/middleware';
import { signedChange } from '../../lib/store/fleet-message';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/store-contract';

const PREFIX = 'signed-spec:';
const SECRET = 'the fleet of this spec shares this secret 0123456789';
const REFUSED =
  "agent-loop refused a change of settings or judge rules that is not signed with the fleet's internalSecret; nothing changed";
const block = { surface: 'tool_call', tool: 'rm', action: 'block', reason: 'never' } as const;
const other = { surface: 'tool_call', tool: 'mv', action: 'block', reason: 'not here' } as const;

describe('what replicas share through the store is signed (real redis-server)', () => {
  let redis: RedisServer;
  let raw: Redis;
  const loops: AgentLoopMiddleware[] = [];
  const replica = (name: string, lines: LogLine[] = [], registry = new Registry(), rules: unknown[] = []) => {
    const logger = memoryLogger('warn');
    const loop = agentLoop({
      store: { url: redis.url, prefix: PREFIX },
      internalSecret: SECRET,
      replicaName: name,
      judge: { rules: rules as never },
      metrics: { registry },
      logger: {
        ...logger.logger,
        warn: (message: string, meta?: object) => lines.push({ ...meta, level: 'warn', message }),
      },
    });
    loops.push(loop);
    return loop;
  };
  const reached = (...replicas: AgentLoopMiddleware[]) =>
    until(async () => {
      const ready = await Promise.all(replicas.map((loop) => loop.ready()));
      return ready.every((down) => Object.keys(down).length === 0);
    }, 'the replicas reach the store');
  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    await Promise.all(loops.map((loop) => loop.close()));
    raw.disconnect();
    await redis.stop();
  });

  it('refuses an unsigned or wrongly signed change with a warning and a metric, ignores a replayed one; genuine changes reach every replica', async () => {
    const heard: LogLine[] = [];
    const registry = new Registry();
    const [a, b] = [replica('a'), replica('b', heard, registry)];
    await reached(a, b);
    a.judgeRules.replace([block] as never);
    await until(() => b.judgeRules.get().rules?.length === 1, 'b has the rule');
    a.judgeRules.replace([]);
    await until(() => b.judgeRules.get().rules?.length === 0, 'b has no rule');
    const emptied = (await raw.get(`${PREFIX}judge-rules`))!;
    a.judgeRules.replace([block] as never);
    await until(() => b.judgeRules.get().rules?.length === 1, 'b has the rule again');

    const channel = `${PREFIX}settings`;
    await raw.publish(channel, JSON.stringify({ replica: 'x', kind: 'judge-rules', value: [] }));
    const forged = { replica: 'x', kind: 'judge-rules', version: Date.now() + 1e9, value: [] } as const;
    await raw.publish(channel, signedChange(Buffer.from('not the fleet’s secret, 32+ characters'), forged));
    await raw.publish(channel, emptied); // a genuine change, older than the one b holds
    a.settings.update({ totalBudgetSec: 77 });
    await until(() => b.settings.get().totalBudgetSec === 77, 'b hears the change after them');

    expect(b.judgeRules.get().rules).toEqual([expect.objectContaining({ tool: 'rm', action: 'block' })]);
    expect(heard.filter((line) => line.message === REFUSED)).toEqual([
      { level: 'warn', message: REFUSED, via: 'message', replica: 'b' },
      { level: 'warn', message: REFUSED, via: 'message', replica: 'b' },
    ]);
    expect(await registry.metrics()).toContain('agent_loop_store_changes_refused_total{via="message"} 2');
  });

  it('refuses an unsigned value written to the store: a replica that starts keeps its own rules', async () => {
    await raw.set(`${PREFIX}judge-rules`, '[]');
    const lines: LogLine[] = [];
    const registry = new Registry();
    const c = replica('c', lines, registry, [other]);
    await until(() => lines.some((line) => line.message === REFUSED), 'c refused the store’s rules');
    expect(lines).toContainEqual({ level: 'warn', message: REFUSED, via: 'store', replica: 'c' });
    expect(c.judgeRules.get().rules).toEqual([expect.objectContaining({ tool: 'mv' })]);
    expect(c.settings.get().totalBudgetSec).toBe(77);
    expect(await registry.metrics()).toContain('agent_loop_store_changes_refused_total{via="store"} 1');
  });

  it('says at start that a replica without internalSecret or MCP_INTERNAL_SECRET shares with no other process', () => {
    const logger = memoryLogger('warn');
    loops.push(agentLoop({ store: { url: redis.url, prefix: PREFIX }, replicaName: 'lone', logger: logger.logger }));
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message:
          "agent-loop shares settings through the store without internalSecret or MCP_INTERNAL_SECRET: replicas in other processes refuse this one's changes (signed with a key of its own), and it refuses theirs; give every replica the same internalSecret",
        replica: 'lone',
      },
    ]);
    const quiet = memoryLogger('warn');
    loops.push(agentLoop({ store: { url: redis.url, prefix: PREFIX }, internalSecret: SECRET, logger: quiet.logger }));
    expect(quiet.lines).toEqual([]);
  });
});
