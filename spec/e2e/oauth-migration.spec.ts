import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import {
  ALICE,
  authorizationOf,
  chat,
  consent,
  lastToolText,
  signIn,
  startGateway,
  whoamiThenAnswer,
  type Gateway,
} from './oauth-gateway';

describe('an MCP server that moves to another authorization server (SEP-2352)', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let next: OAuthMcpServer;
  let gateway: Gateway;
  beforeEach(async () => {
    model = await startModelServer();
    mcp = await startOAuthMcpServer();
    next = await startOAuthMcpServer();
    gateway = await startGateway(model, mcp);
  });
  afterEach(async () => {
    await gateway.close();
    await Promise.all([mcp.close(), next.close()]);
    await model.close();
  });

  it('discovers the new one and registers with it, never showing it the old client or tokens', async () => {
    await signIn(gateway, ALICE, 'alice');
    model.setScript(whoamiThenAnswer());
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('you are alice');
    const oldClient = mcp.registrations[0].client_id;

    mcp.migrateTo(next);
    const again = await chat(gateway, ALICE);
    expect(again.headers.get('x-agent-loop-stop')).toBe('authorization');
    const link = again.headers.get('x-agent-loop-authorize')!;
    const authorization = await authorizationOf(link);
    expect(authorization.origin).toBe(new URL(next.issuer).origin);
    expect(next.registrations).toHaveLength(1);
    expect(authorization.searchParams.get('client_id')).toBe(next.registrations[0].client_id);
    expect(next.registrations[0].client_id).not.toBe(oldClient);
    expect(mcp.registrations).toHaveLength(1);

    await consent(link, 'alice');
    model.setScript(whoamiThenAnswer());
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('you are alice');
    expect(next.grants).toEqual([{ type: 'authorization_code', login: 'alice' }]);
    expect(next.paths.filter((path) => path.startsWith('POST /token'))).toHaveLength(1);
  });

  it('stamps a configured client with the issuer it is used at, so the SDK has no unstamped credential to warn of', async () => {
    const warn = jest.spyOn(console, 'warn');
    const configured = await startGateway(model, mcp, { clientId: 'operator-client' });
    try {
      mcp.addClient({
        client_id: 'operator-client',
        redirect_uris: [`${configured.origin}/oauth/callback`],
        token_endpoint_auth_method: 'none',
      });
      await signIn(configured, ALICE, 'alice');
      model.setScript(whoamiThenAnswer());
      await chat(configured, ALICE);
      expect(lastToolText(model)).toBe('you are alice');
      expect(warn.mock.calls.filter(([line]) => String(line).includes('SEP-2352'))).toEqual([]);
    } finally {
      warn.mockRestore();
      await configured.close();
    }
  });
});
