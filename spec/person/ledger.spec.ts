import { AnswerLedger } from '../../lib/person/ledger';
import { MemoryStore } from '../../lib/store/memory-store';

describe('AnswerLedger: an approval answered twice decides nothing the second time', () => {
  afterEach(() => jest.useRealTimers());

  it('takes the first answer of a token, refuses every later one while the token could still open', async () => {
    jest.useFakeTimers();
    const ledger = new AnswerLedger(new MemoryStore(), 60);
    expect(await ledger.answer('token-a')).toBe('first');
    expect(await ledger.answer('token-a')).toBe('again');
    expect(await ledger.answer('token-b')).toBe('first');
    jest.advanceTimersByTime(59_000);
    expect(await ledger.answer('token-a')).toBe('again');
  });

  it('forgets a token once it could no longer open anyway (its ttl passed)', async () => {
    jest.useFakeTimers();
    const ledger = new AnswerLedger(new MemoryStore(), 60);
    await ledger.answer('token-a');
    jest.advanceTimersByTime(60_001);
    expect(await ledger.answer('token-a')).toBe('first');
  });

  it('keeps a digest of the token in the store, never the token, and says unrecorded when the store cannot take it', async () => {
    const store = new MemoryStore();
    await new AnswerLedger(store, 60).answer('the-token');
    const keys = [...(await store.entries(''))].map(([key]) => key);
    expect(keys).toEqual([expect.stringMatching(/^approval:[0-9a-f]{64}$/)]);
    expect(JSON.stringify(keys)).not.toContain('the-token');
    store.set = () => Promise.reject(new Error('store set failed: the connection closed'));
    expect(await new AnswerLedger(store, 60).answer('other')).toBe('unrecorded');
  });
});
