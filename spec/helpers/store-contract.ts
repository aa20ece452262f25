import type { Store } from '../../lib/store/store';

/** What every store does, the memory one and Redis alike: `open()` gives a fresh, empty store each time. */
export function storeContract(open: () => Promise<Store>): void {
  let store: Store;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(() => store.close());

  it('gets what it set, and nothing for a key never set', async () => {
    expect(await store.set('a', 'one')).toBe(true);
    expect(await store.get('a')).toBe('one');
    expect(await store.get('never')).toBeUndefined();
  });

  it('sets a key that is absent only once with ifAbsent (a one-time answer, a lock)', async () => {
    expect(await store.set('once', 'first', { ifAbsent: true })).toBe(true);
    expect(await store.set('once', 'second', { ifAbsent: true })).toBe(false);
    expect(await store.get('once')).toBe('first');
  });

  it('forgets a key past its ttl', async () => {
    await store.set('short', 'x', { ttlMs: 30, ifAbsent: true });
    await store.set('long', 'y', { ttlMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.set('short', 'again', { ifAbsent: true })).toBe(true);
    expect(await store.get('long')).toBe('y');
  });

  it('deletes a key, and with ifValue only while it holds that value (releasing a lock one holds)', async () => {
    await store.set('lock', 'mine');
    expect(await store.delete('lock', 'theirs')).toBe(false);
    expect(await store.get('lock')).toBe('mine');
    expect(await store.delete('lock', 'mine')).toBe(true);
    expect(await store.get('lock')).toBeUndefined();
    await store.set('plain', 'v');
    expect(await store.delete('plain')).toBe(true);
    expect(await store.delete('plain')).toBe(false);
  });

  it('increments from 0, sums every increment of parallel callers, and sets the ttl of a new key only', async () => {
    const sums = await Promise.all(Array.from({ length: 50 }, () => store.increment('count', 3, 60_000)));
    expect(Math.max(...sums)).toBe(150);
    expect(new Set(sums).size).toBe(50);
    expect(await store.get('count')).toBe('150');
    await store.increment('brief', 1, 30);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.increment('brief', 1, 30)).toBe(1);
  });

  it('lists the keys under a prefix with their values, and no others', async () => {
    await store.set('loops:a', '1');
    await store.set('loops:b', '2');
    await store.set('loopsx', '3');
    await store.set('other', '4');
    expect(Object.fromEntries(await store.entries('loops:'))).toEqual({ 'loops:a': '1', 'loops:b': '2' });
    expect((await store.entries('none:')).size).toBe(0);
  });

  it('delivers a published message to every subscriber of the channel until it unsubscribes', async () => {
    const got: string[] = [];
    const other: string[] = [];
    const stop = store.subscribe('news', (message) => got.push(message));
    store.subscribe('elsewhere', (message) => other.push(message));
    await until(async () => {
      await store.publish('news', 'ping');
      return got.length > 0;
    });
    await store.publish('news', 'hello');
    await until(async () => got.includes('hello'));
    stop();
    await store.publish('news', 'after');
    await store.publish('elsewhere', 'there');
    await until(async () => other.includes('there'));
    expect(got.filter((message) => message !== 'ping')).toEqual(['hello']);
  });
}

/** Asks `check` until it says true (a subscription is made asynchronously on Redis); fails after 10 s. */
export async function until(check: () => Promise<boolean> | boolean, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
