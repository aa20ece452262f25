import { Redis } from 'ioredis';
import { RedisStore } from '../../lib/store/redis-store';
import type { Store } from '../../lib/store/store';
import { memoryLogger } from '../helpers/memory-logger';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { storeContract, until } from '../helpers/store-contract';

let redis: RedisServer;
let secured: RedisServer;
const PASSWORD = 'fleet-password-7c1d9e';
const opened: Store[] = [];
let fresh = 0;

function open(
  url = redis.url,
  prefix = `spec-${++fresh}:`,
  logger = memoryLogger('error').logger,
  observe?: (operation: string, seconds: number, ok: boolean) => void,
): RedisStore {
  const store = new RedisStore(Redis, { url, prefix, logger, observe });
  opened.push(store);
  return store;
}

async function reached(store: Store): Promise<Store> {
  await until(() => store.unreachable === undefined, 'the store reachable');
  return store;
}

beforeAll(async () => {
  [redis, secured] = await Promise.all([startRedis(), startRedis(['--requirepass', PASSWORD])]);
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await Promise.all([redis?.stop(), secured?.stop()]);
});

describe('RedisStore (a real redis-server)', () => {
  storeContract(() => reached(open()));

  it('shares keys, counters and messages between two stores of one prefix, as replicas of a fleet do', async () => {
    const [a, b] = await Promise.all([reached(open(redis.url, 'fleet-1:')), reached(open(redis.url, 'fleet-1:'))]);
    await a.set('answered:abc', '1', { ifAbsent: true, ttlMs: 60_000 });
    expect(await b.set('answered:abc', '1', { ifAbsent: true, ttlMs: 60_000 })).toBe(false);
    await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).increment('budget:k', 7, 60_000)));
    expect(await a.get('budget:k')).toBe('700');
    const got: string[] = [];
    b.subscribe('settings', (message) => got.push(message));
    await until(async () => {
      await a.publish('settings', 'from a');
      return got.length > 0;
    });
    expect(got[0]).toBe('from a');
    const other = await reached(open(redis.url, 'fleet-2:'));
    expect(await other.get('answered:abc')).toBeUndefined();
    expect([...(await other.entries(''))]).toEqual([]);
  });

  it('escapes glob characters of a prefix when it lists keys', async () => {
    const store = await reached(open(redis.url, 'odd*[x]:'));
    await store.set('a?', '1');
    const neighbour = await reached(open(redis.url, 'oddZx]:'));
    await neighbour.set('a?', '2');
    expect(Object.fromEntries(await store.entries('a'))).toEqual({ 'a?': '1' });
  });

  it('works with a password in the URL and never shows it: not in its description, its errors or its log lines', async () => {
    const logger = memoryLogger('debug');
    const good = await reached(open(`redis://:${PASSWORD}@127.0.0.1:${secured.port}`, 'auth:', logger.logger));
    await good.set('k', 'v');
    expect(await good.get('k')).toBe('v');
    expect(good.description).toBe(`redis://[redacted]@127.0.0.1:${secured.port}`);
    const wrong = open(`redis://:wrong-${PASSWORD}@127.0.0.1:${secured.port}`, 'auth:', logger.logger);
    await until(() => (wrong.unreachable ?? '').includes('WRONGPASS'), 'the refused password said');
    const error = await wrong.get('k').catch((caught: Error) => caught);
    expect(String(error)).toMatch(/^Error: store get failed: /);
    const shown = JSON.stringify({
      lines: logger.lines,
      error: String(error),
      unreachable: wrong.unreachable,
      description: wrong.description,
    });
    expect(shown).not.toContain(PASSWORD);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'agent-loop store unreachable; the loop runs on without it' }),
    );
  });

  it('while Redis is away: calls reject at once and say why, unreachable names it; back: it reconnects, subscribes again and calls onReachable', async () => {
    const own = await startRedis();
    const logger = memoryLogger('debug');
    const observed: [string, boolean][] = [];
    const store = await reached(
      open(own.url, 'away:', logger.logger, (operation, _seconds, ok) => observed.push([operation, ok])),
    );
    const sub = await reached(open(own.url, 'away:'));
    const got: string[] = [];
    sub.subscribe('news', (message) => got.push(message));
    const reachable = jest.fn();
    sub.onReachable(reachable);
    await until(() => reachable.mock.calls.length === 1, 'onReachable called for the store reachable now');
    await until(async () => {
      await store.publish('news', 'before');
      return got.includes('before');
    });
    await own.stop();
    await until(() => store.unreachable !== undefined, 'the store unreachable');
    await expect(store.increment('budget:k', 1)).rejects.toThrow(/^store increment failed: /);
    await expect(store.set('answered:x', '1', { ifAbsent: true })).rejects.toThrow(/^store set failed: /);
    expect(observed).toContainEqual(['increment', false]);
    await own.start();
    await reached(store);
    await until(() => reachable.mock.calls.length === 2, 'onReachable called again');
    await until(async () => {
      await store.publish('news', 'after');
      return got.includes('after');
    });
    expect(await store.increment('budget:k', 2)).toBe(2);
    expect(observed).toContainEqual(['increment', true]);
    expect(
      logger.lines.filter((line) => line.message === 'agent-loop store unreachable; the loop runs on without it'),
    ).toHaveLength(1);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'agent-loop store reachable again' }),
    );
    await Promise.all([store.close(), sub.close()]);
    await own.stop();
  });
});
