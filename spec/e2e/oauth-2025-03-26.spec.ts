import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { ALICE, chat, consent, lastToolText, startGateway, whoamiThenAnswer, type Gateway } from './oauth-gateway';

/**
 * Servers written to the 2025-03-26 MCP authorization spec: no protected resource metadata, the authorization server
 * at the MCP server's origin, found by its RFC 8414 metadata there, or, with none, at the default endpoints.
 */
describe.each([
  ['with authorization server metadata at its origin', 'metadata'],
  ['with no metadata at all: the default endpoints', 'defaults'],
] as const)('OAuth with an older (2025-03-26) server, %s', (_case, legacy) => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  beforeEach(async () => {
    [model, mcp] = await Promise.all([startModelServer(), startOAuthMcpServer({ legacy })]);
    gateway = await startGateway(model, mcp);
  });
  afterEach(async () => {
    await gateway.close();
    await Promise.all([mcp.close(), model.close()]);
  });

  it('signs the user in at the server’s origin, runs the loop with the token, and refreshes it', async () => {
    mcp.setExpiresIn(0);
    const first = await chat(gateway, ALICE);
    expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
    const link = new URL(first.headers.get('x-agent-loop-authorize')!);
    expect(`${link.origin}${link.pathname}`).toBe(`${new URL(mcp.url).origin}/authorize`);
    expect(link.searchParams.get('code_challenge_method')).toBe('S256');
    expect(link.searchParams.get('resource')).toBeNull();
    expect(mcp.registrations).toHaveLength(1);
    const page = await consent(link.toString(), 'alice');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${mcp.url} is connected`);
    mcp.setExpiresIn(3600);

    model.setScript(whoamiThenAnswer());
    const second = await chat(gateway, ALICE);
    expect(second.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe('you are alice');
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);

    const asked = mcp.paths.filter((path) => !path.endsWith(' /mcp'));
    expect(asked).toEqual(
      expect.arrayContaining([
        'GET /.well-known/oauth-protected-resource/mcp',
        'GET /.well-known/oauth-protected-resource',
        'GET /.well-known/oauth-authorization-server',
        'POST /register',
        'GET /authorize',
        'POST /token',
      ]),
    );
    expect(asked.filter((path) => path === 'POST /token')).toHaveLength(2);
  });
});
