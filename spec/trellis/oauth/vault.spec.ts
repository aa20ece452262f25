import { randomBytes } from 'node:crypto';
import { MemoryStore } from '../../../lib/store/memory-store';
import { TokenVault } from '../../../lib/trellis/oauth/vault';

const tokens = {
  access_token: 'at-secret-1',
  refresh_token: 'rt-secret-1',
  token_type: 'Bearer',
  expires_in: 60,
  scope: 'notes:read',
};

describe('TokenVault', () => {
  afterEach(() => jest.useRealTimers());

  it('keeps each user’s tokens per server, sealed: the store holds no token', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryStore();
    const vault = new TokenVault(randomBytes(32), store);
    await vault.save('notes', 'u1', tokens);
    expect(await vault.get('notes', 'u1')).toEqual({ tokens, expiresAt: 1_060_000, lifetimeMs: 60_000 });
    expect(await vault.get('notes', 'u2')).toBeUndefined();
    expect(await vault.get('other', 'u1')).toBeUndefined();
    const stored = [...(await store.entries('oauth:')).values()].join('\n');
    expect(stored).not.toContain('secret');
  });

  it('opens no record moved to another user’s key, nor one sealed under another secret', async () => {
    const store = new MemoryStore();
    const vault = new TokenVault(randomBytes(32), store);
    await vault.save('notes', 'u1', tokens);
    await store.set('oauth:tokens:notes:u2', (await store.get('oauth:tokens:notes:u1'))!);
    expect(await vault.get('notes', 'u2')).toBeUndefined();
    expect(await new TokenVault(randomBytes(32), store).get('notes', 'u1')).toBeUndefined();
  });

  it('lists who holds tokens for which server and until when, never a token; forgets one', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    const vault = new TokenVault(randomBytes(32), new MemoryStore());
    await vault.save('http://127.0.0.1:1/mcp', 'u1', tokens);
    expect(await vault.list()).toEqual([
      {
        server: 'http://127.0.0.1:1/mcp',
        user: 'u1',
        expiresAt: '2026-01-01T00:01:00.000Z',
        scope: 'notes:read',
        refreshable: true,
      },
    ]);
    expect(await vault.forget('http://127.0.0.1:1/mcp', 'u1')).toBe(true);
    expect(await vault.list()).toEqual([]);
  });

  it('keeps the client registered per server, sealed', async () => {
    const vault = new TokenVault(randomBytes(32), new MemoryStore());
    await vault.saveClient('notes', { client_id: 'c1', client_secret: 'cs-secret' });
    expect(await vault.client('notes')).toEqual({ client_id: 'c1', client_secret: 'cs-secret' });
    await vault.forgetClient('notes');
    expect(await vault.client('notes')).toBeUndefined();
  });
});
