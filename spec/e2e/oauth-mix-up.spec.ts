import http from 'node:http';
import { onLoopback, type OnLoopback } from '../../lib/testing/loopback';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { ALICE, chat, lastToolText, startGateway, whoamiThenAnswer, type Gateway } from './oauth-gateway';

/**
 * Mix-up (attack 6 of issue 38): server X's metadata names X as issuer but another server H's endpoint, so that the
 * person consents at H and H's code goes to X.
 */
describe('OAuth mix-up: metadata naming another server’s endpoints', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let honest: OnLoopback & { seen: string[] };
  let gateway: Gateway;
  beforeEach(async () => {
    [model, mcp] = await Promise.all([startModelServer(), startOAuthMcpServer()]);
    const seen: string[] = [];
    honest = {
      ...(await onLoopback(http.createServer((req, res) => void (seen.push(`${req.method} ${req.url}`), res.end())))),
      seen,
    };
    gateway = await startGateway(model, mcp);
  });
  afterEach(async () => {
    await gateway.close();
    await Promise.all([honest.close(), mcp.close(), model.close()]);
  });

  it('gives no consent link when the server sends no iss: the call fails readably, nothing is registered', async () => {
    mcp.setMetadata({
      authorization_endpoint: `${honest.origin}/authorize`,
      authorization_response_iss_parameter_supported: false,
    });
    model.setScript(whoamiThenAnswer());
    const answer = await chat(gateway, ALICE);
    expect(answer.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toContain(
      `refused as a possible mix-up: authorization_endpoint on ${honest.origin}, issuer on ${new URL(mcp.url).origin}, no iss`,
    );
    expect(mcp.registrations).toEqual([]);
    expect(honest.seen).toEqual([]);
  });

  it('when the server says it sends iss, sends no code that comes back without it', async () => {
    mcp.setMetadata({ authorization_endpoint: `${honest.origin}/authorize` });
    const link = new URL((await chat(gateway, ALICE)).headers.get('x-agent-loop-authorize')!);
    expect(link.origin).toBe(honest.origin);
    const back = await fetch(`${gateway.origin}/oauth/callback?code=h-code&state=${link.searchParams.get('state')}`);
    expect(back.status).toBe(400);
    expect(mcp.paths).not.toContain('POST /token');
  });
});
