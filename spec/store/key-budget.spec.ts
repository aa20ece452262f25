import type { IncomingMessage } from 'node:http';
import { KeyBudget, keyMeter, TURNS_PER_SEND } from '../../lib/store/key-budget';
import { MemoryStore } from '../../lib/store/memory-store';
import { memoryLogger } from '../helpers/memory-logger';

const budget = { tokens: 1000, windowSec: 60 };
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('KeyBudget: tokens per client key per window', () => {
  afterEach(() => jest.useRealTimers());

  it('counts a key under the hash of the key, however it was sent (bearer or x-api-key), never the key; none without one', () => {
    const budgets = new KeyBudget(new MemoryStore(), memoryLogger().logger);
    expect(budgets.keyOf(req({ authorization: 'Bearer alice-key' }))).toMatch(/^[0-9a-f]{64}$/);
    expect(budgets.keyOf(req({ 'x-api-key': 'alice-key' }))).toBe(
      budgets.keyOf(req({ authorization: 'Bearer alice-key' })),
    );
    expect(budgets.keyOf(req({ 'x-api-key': 'bob-key' }))).not.toBe(budgets.keyOf(req({ 'x-api-key': 'alice-key' })));
    expect(budgets.keyOf(req({}))).toBeUndefined();
    expect(keyMeter(budgets, budget, req({}))).toBeUndefined();
    expect(keyMeter(budgets, undefined, req({ authorization: 'Bearer a' }))).toBeUndefined();
  });

  it('sums what a key spent in the window, lists keys by 12 hex, and starts afresh in the next window', async () => {
    jest.useFakeTimers({ now: 1_800_000_000_000 });
    const store = new MemoryStore();
    const budgets = new KeyBudget(store, memoryLogger().logger);
    const key = budgets.keyOf(req({ authorization: 'Bearer alice-key' }))!;
    const meter = keyMeter(budgets, budget, req({ authorization: 'Bearer alice-key' }))!;
    expect(await meter.add(600)).toBe(false);
    expect(await meter.add(400)).toBe(true);
    const resetsAt = (Math.floor(1_800_000_000 / 60) + 1) * 60_000;
    expect(await budgets.spent(budget, key)).toEqual({ spent: 1000, resetsAt });
    expect(await budgets.keys(budget)).toEqual([
      { key: key.slice(0, 12), spent: 1000, resetsAt: new Date(resetsAt).toISOString() },
    ]);
    jest.setSystemTime(resetsAt);
    expect(await budgets.spent(budget, key)).toEqual({ spent: 0, resetsAt: resetsAt + 60_000 });
    expect(await budgets.keys(budget)).toEqual([]);
  });

  it('while the store cannot count: not enforced, a warning at most once a minute, and the metric each time', async () => {
    jest.useFakeTimers({ now: 1_800_000_000_000 });
    const store = new MemoryStore();
    const failing = () => Promise.reject(new Error('store get failed: the connection closed'));
    store.get = failing;
    store.increment = failing;
    const { logger, lines } = memoryLogger('warn');
    const unenforced = jest.fn();
    const budgets = new KeyBudget(store, logger, unenforced);
    const meter = keyMeter(budgets, { tokens: 1, windowSec: 60 }, req({ authorization: 'Bearer k' }))!;
    expect(await meter.add(50)).toBe(false);
    expect(await budgets.spent(budget, 'k')).toBeUndefined();
    jest.advanceTimersByTime(59_000);
    await meter.add(1);
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'agent-loop key budgets are not enforced: the store is unreachable',
        reason: 'store get failed: the connection closed',
      },
    ]);
    jest.advanceTimersByTime(1_000);
    await meter.add(1);
    expect(lines).toHaveLength(2);
    expect(unenforced).toHaveBeenCalledTimes(4);
  });

  it('sends a loop’s tokens every four turns, once its count reaches the budget, and at its end; another loop’s, it sees at its next send', async () => {
    jest.useFakeTimers({ now: 1_800_000_000_000 });
    const store = new MemoryStore();
    const sent: number[] = [];
    const increment = store.increment.bind(store);
    store.increment = (key, by, ttlMs) => (sent.push(by), increment(key, by, ttlMs));
    const budgets = new KeyBudget(store, memoryLogger().logger);
    const alice = req({ authorization: 'Bearer alice-key' });
    const key = budgets.keyOf(alice)!;
    const first = keyMeter(budgets, budget, alice, await budgets.spent(budget, key))!;
    const second = keyMeter(budgets, budget, alice, await budgets.spent(budget, key))!;

    expect(TURNS_PER_SEND).toBe(4);
    for (const tokens of [100, 100, 100]) expect(await first.add(tokens)).toBe(false);
    expect(sent).toEqual([]);
    expect(await second.add(500)).toBe(false);
    await second.flush();
    expect(sent).toEqual([500]);
    // the first loop counts 400 of its own: the second's 500 shows only at its send, after its fourth turn
    expect(await first.add(100)).toBe(false);
    expect(sent).toEqual([500, 400]);
    expect(await first.add(50)).toBe(false);
    expect(await first.add(50)).toBe(true);
    expect(sent).toEqual([500, 400, 100]);
    await first.flush();
    expect(sent).toEqual([500, 400, 100]);
    expect(await budgets.spent(budget, key)).toEqual(expect.objectContaining({ spent: 1000 }));

    // a loop that starts from the key's spend sends as soon as its own count reaches the budget: no turn beyond it
    const third = keyMeter(budgets, { tokens: 1100, windowSec: 60 }, alice, await budgets.spent(budget, key))!;
    expect(await third.add(100)).toBe(true);
    expect(sent).toEqual([500, 400, 100, 100]);
  });
});
