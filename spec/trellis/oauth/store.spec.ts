import { memoryOAuthStore } from '../../../lib/trellis/oauth/store';

describe('memoryOAuthStore', () => {
  afterEach(() => jest.useRealTimers());

  it('writes once with ifAbsent, and lets a key expire', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = memoryOAuthStore();
    expect(await store.set('lock', 'a', { ifAbsent: true, ttlMs: 1000 })).toBe(true);
    expect(await store.set('lock', 'b', { ifAbsent: true })).toBe(false);
    expect(await store.get('lock')).toBe('a');
    jest.setSystemTime(1_001_000);
    expect(await store.get('lock')).toBeUndefined();
    expect(await store.set('lock', 'b', { ifAbsent: true })).toBe(true);
  });

  it('deletes only while the key holds ifValue', async () => {
    const store = memoryOAuthStore();
    await store.set('lock', 'mine');
    expect(await store.delete('lock', 'theirs')).toBe(false);
    expect(await store.delete('lock', 'mine')).toBe(true);
    expect(await store.delete('lock')).toBe(false);
  });

  it('lists the live entries under a prefix', async () => {
    const store = memoryOAuthStore();
    await store.set('oauth:tokens:a', '1');
    await store.set('oauth:client:a', '2');
    expect(await store.entries('oauth:tokens:')).toEqual(new Map([['oauth:tokens:a', '1']]));
  });
});
