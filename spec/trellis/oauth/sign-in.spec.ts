import { randomBytes } from 'node:crypto';
import { LOGIN_HEADER, startOAuthMcpServer, type OAuthMcpServer } from '../../../fixtures/oauth-mcp-server';
import { ConsentRequired } from '../../../lib/trellis/oauth/consent';
import { takeFlow } from '../../../lib/trellis/oauth/flow-state';
import { ServerSignIn } from '../../../lib/trellis/oauth/sign-in';
import { MemoryStore } from '../../../lib/store/memory-store';
import type { Store } from '../../../lib/store/store';
import { TokenVault } from '../../../lib/trellis/oauth/vault';
import { Redis } from 'ioredis';
import { RedisStore } from '../../../lib/store/redis-store';
import { memoryLogger } from '../../helpers/memory-logger';
import { startRedis } from '../../helpers/redis-server';

const redirectUrl = 'http://127.0.0.1:9/oauth/callback';

/** A replica's sign-in to the fixture's server: replicas given one store and one key share tokens and locks. */
function replica(mcp: OAuthMcpServer, store: Store, key: Buffer): ServerSignIn {
  return new ServerSignIn(
    { server: 'notes', options: { redirectUrl }, vault: new TokenVault(key, store), key },
    mcp.url,
    store,
  );
}

/** Consents as `login` and finishes the flow the way the callback does, without a gateway: the code from the redirect. */
async function consentAndFinish(signIn: ServerSignIn, store: Store, key: Buffer, user: string, login = 'alice') {
  const consent = await signIn.consent(user);
  expect(consent).toBeInstanceOf(ConsentRequired);
  const redirect = await fetch(consent!.url, { headers: { [LOGIN_HEADER]: login }, redirect: 'manual' });
  const back = new URL(redirect.headers.get('location')!);
  const opened = await takeFlow(key, back.searchParams.get('state')!, store);
  if (!('flow' in opened)) throw new Error(opened.failed);
  await signIn.complete(opened.flow, back.searchParams.get('code')!, back.searchParams.get('iss') ?? undefined);
}

describe('ServerSignIn', () => {
  let mcp: OAuthMcpServer;
  const key = randomBytes(32);
  beforeEach(async () => (mcp = await startOAuthMcpServer()));
  afterEach(async () => {
    jest.restoreAllMocks();
    await mcp.close();
  });

  it('has no token before consent, and the user’s own after it', async () => {
    const store = new MemoryStore();
    const signIn = replica(mcp, store, key);
    expect(await signIn.accessToken('u1')).toBeUndefined();
    await consentAndFinish(signIn, store, key, 'u1');
    expect(mcp.secrets).toContain(await signIn.accessToken('u1'));
    expect(await signIn.accessToken('u2')).toBeUndefined();
  });

  it('uses a short-lived token for most of its life and refreshes it once, a tenth of its life before expiry', async () => {
    const store = new MemoryStore();
    const signIn = replica(mcp, store, key);
    mcp.setExpiresIn(30);
    await consentAndFinish(signIn, store, key, 'u1');
    const received = await signIn.accessToken('u1');
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start + 26_000);
    expect(await signIn.accessToken('u1')).toBe(received);
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code']);
    jest.spyOn(Date, 'now').mockReturnValue(start + 27_500);
    const refreshed = await Promise.all([signIn.accessToken('u1'), signIn.accessToken('u1')]);
    expect(refreshed[0]).not.toBe(received);
    expect(refreshed[1]).toBe(refreshed[0]);
    expect(await signIn.accessToken('u1')).toBe(refreshed[0]);
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);
  });

  it('makes one refresh grant for many requests at once, fleet-wide: two replicas on one store refresh once', async () => {
    const store = new MemoryStore();
    const [first, second] = [replica(mcp, store, key), replica(mcp, store, key)];
    mcp.setExpiresIn(0);
    await consentAndFinish(first, store, key, 'u1');
    const stale = await first.accessToken('u1').catch(() => undefined);
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);
    mcp.setExpiresIn(0);
    const tokens = await Promise.all([...Array(5)].flatMap(() => [first.accessToken('u1'), second.accessToken('u1')]));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(stale);
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
  });

  it('with the fleet’s Redis store: two replicas share the tokens, refresh once, and take a state once', async () => {
    const redis = await startRedis();
    const stores = [0, 1].map(
      () => new RedisStore(Redis, { url: redis.url, prefix: 'oauth-spec:', logger: memoryLogger('error').logger }),
    );
    try {
      const [first, second] = stores.map((store) => replica(mcp, store, key));
      mcp.setExpiresIn(0);
      const consent = await first.consent('u1');
      const redirect = await fetch(consent!.url, { headers: { [LOGIN_HEADER]: 'alice' }, redirect: 'manual' });
      const state = new URL(redirect.headers.get('location')!).searchParams.get('state')!;
      const taken = await takeFlow(key, state, stores[1]);
      expect(await takeFlow(key, state, stores[0])).toEqual({ failed: 'replayed' });
      const back = new URL(redirect.headers.get('location')!);
      await second.complete(
        (taken as { flow: never }).flow,
        back.searchParams.get('code')!,
        back.searchParams.get('iss') ?? undefined,
      );
      mcp.setExpiresIn(3600);
      const tokens = await Promise.all(
        [...Array(5)].flatMap(() => [first.accessToken('u1'), second.accessToken('u1')]),
      );
      expect(new Set(tokens).size).toBe(1);
      expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await redis.stop();
    }
  });

  it('sends a code only to the token endpoint its consent link was made for, whichever replica takes it', async () => {
    const store = new MemoryStore();
    const [first, second] = [replica(mcp, store, key), replica(mcp, store, key)];
    const consent = await first.consent('u1');
    mcp.setMetadata({ token_endpoint: `${new URL(mcp.url).origin}/token-moved` });
    const redirect = await fetch(consent!.url, { headers: { [LOGIN_HEADER]: 'alice' }, redirect: 'manual' });
    const back = new URL(redirect.headers.get('location')!);
    const opened = await takeFlow(key, back.searchParams.get('state')!, store);
    if (!('flow' in opened)) throw new Error(opened.failed);
    await expect(
      second.complete(opened.flow, back.searchParams.get('code')!, back.searchParams.get('iss') ?? undefined),
    ).rejects.toThrow(
      "the authorization server's token endpoint is no longer the one the consent link was made for: the code is not sent to another",
    );
    expect(mcp.paths.filter((path) => path.startsWith('POST /token'))).toEqual([]);
  });

  it('turns a refused refresh grant (invalid_grant) into the consent link', async () => {
    const store = new MemoryStore();
    const signIn = replica(mcp, store, key);
    mcp.setExpiresIn(0);
    await consentAndFinish(signIn, store, key, 'u1');
    mcp.revokeAll();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(signIn.accessToken('u1')).rejects.toBeInstanceOf(ConsentRequired);
    warn.mockRestore();
  });

  it('asks for the wider scope a bounded number of times in a row, and afresh once a call went through', async () => {
    const store = new MemoryStore();
    const signIn = replica(mcp, store, key);
    const refused = Object.assign(new Error('403'), { requiredScope: 'notes:admin' });
    const asks = [];
    for (let i = 0; i < 3; i++) asks.push(await signIn.stepUp('u1', refused as never));
    expect(asks.map((ask) => ask instanceof ConsentRequired)).toEqual([true, true, false]);
    expect(new URL((asks[0] as ConsentRequired).url).searchParams.get('scope')).toContain('notes:admin');
    expect(asks[2].message).toBe(
      "notes still refuses the call for want of scope 'notes:admin' after 2 requests for it",
    );
    signIn.served('u1');
    expect(await signIn.stepUp('u1', refused as never)).toBeInstanceOf(ConsentRequired);
  });
});
