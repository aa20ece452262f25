import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { LOGIN_HEADER, startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { ALICE, ask, chat, confirm, startGateway, type Gateway } from './oauth-gateway';

/**
 * Attack 8 of issue 38: a consent link decided whose account is linked by whoever opened it. The link is now the
 * gateway's page, which says whose loops are being linked; only its confirm button sets the cookie the callback needs.
 */
describe('the consent link is bound to the browser that confirmed it', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  beforeEach(async () => {
    [model, mcp] = await Promise.all([startModelServer(), startOAuthMcpServer()]);
    gateway = await startGateway(model, mcp);
  });
  afterEach(async () => {
    await gateway.close();
    await Promise.all([mcp.close(), model.close()]);
  });

  const tokens = async () =>
    ((await (await fetch(`${gateway.origin}/admin/api/oauth`)).json()) as { tokens: unknown[] }).tokens;
  const linkOf = async (headers: Record<string, string> = {}) =>
    (await chat(gateway, ALICE, ask(), headers)).headers.get('x-agent-loop-authorize')!;

  it('opens a page that says which server and whose loops it links, with a confirm button; opening it links nothing', async () => {
    const link = await linkOf();
    const shown = await fetch(link);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('set-cookie')).toBeNull();
    const text = await shown.text();
    expect(text).toContain(`Connect ${mcp.url}?`);
    expect(text).toContain(
      `This links your account at ${mcp.url} to the client whose key ends in …6789 of this gateway: its loops will call ${mcp.url} as you.`,
    );
    expect(text).toContain('<form method="post"');
    expect(mcp.authorizations).toEqual([]);
  });

  it('names the user oauth.user gives', async () => {
    await gateway.close();
    gateway = await startGateway(model, mcp, { user: 'x-user-id' });
    const text = await (await fetch(await linkOf({ 'x-user-id': 'alice@example.com' }))).text();
    expect(text).toContain(`to alice@example.com of this gateway`);
  });

  it('links nothing when another browser finishes the sign-in: the callback without the cookie is a 403', async () => {
    const confirmed = await confirm(await linkOf());
    expect(confirmed.status).toBe(303);
    expect(confirmed.cookie).toMatch(/^agent_loop_consent_[\w-]+=/);
    // Mallory's browser, given the authorization request, consents as Mallory and lands on the callback
    const atServer = await fetch(confirmed.location!, { headers: { [LOGIN_HEADER]: 'mallory' }, redirect: 'manual' });
    const landed = await fetch(atServer.headers.get('location')!);
    expect(landed.status).toBe(403);
    expect(await landed.text()).toContain(
      'The sign-in did not complete: this browser did not confirm it on the gateway’s page (open the link the gateway gave, in this browser). Nothing was stored',
    );
    expect(mcp.grants).toEqual([]);
    expect(await tokens()).toEqual([]);
  });

  it('takes no cookie of another sign-in, and no confirmation posted from another site', async () => {
    const first = await confirm(await linkOf());
    const second = await confirm(await linkOf());
    const atServer = await fetch(second.location!, { headers: { [LOGIN_HEADER]: 'alice' }, redirect: 'manual' });
    const landed = await fetch(atServer.headers.get('location')!, { headers: { cookie: first.cookie! } });
    expect(landed.status).toBe(403);

    const link = await linkOf();
    const forged = await fetch(link, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
    expect(forged.headers.get('location')).toBeNull();
    expect(mcp.grants).toEqual([]);
    expect(await tokens()).toEqual([]);
  });
});
