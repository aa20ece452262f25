import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/store-contract';
import { ALICE, chat, consent, lastToolText, startGateway, whoamiThenAnswer, type Gateway } from './oauth-gateway';

const internalSecret = 'fleet-secret-0123456789abcdef0123456789';

/**
 * Two replicas behind one public callback URL (B's: a load balancer may send the redirect to any replica), sharing
 * `internalSecret` and one real redis-server as their `store`.
 */
describe('OAuth across a fleet: two gateways on one Redis', () => {
  let redis: RedisServer;
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let a: Gateway;
  let b: Gateway;
  beforeEach(async () => {
    [redis, model, mcp] = await Promise.all([startRedis(), startModelServer(), startOAuthMcpServer()]);
    const options = { internalSecret, store: { url: redis.url } };
    b = await startGateway(model, mcp, {}, options);
    a = await startGateway(model, mcp, { redirectUrl: `${b.origin}/oauth/callback` }, options);
    // a replica whose store is not reached yet reads no tokens: its loops run with each call failing readably
    for (const replica of [a, b])
      await until(async () => (await replica.loop.ready()).store === undefined, 'the store is reached');
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await Promise.all([mcp.close(), model.close(), redis.stop()]);
  });

  it('finishes on B a consent started on A, and A runs the next message with the token B stored', async () => {
    const first = await chat(a, ALICE);
    expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
    const page = await consent(first.headers.get('x-agent-loop-authorize')!, 'alice');
    expect(page.url.startsWith(`${b.origin}/oauth/callback?`)).toBe(true);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${mcp.url} is connected`);
    expect(mcp.registrations).toHaveLength(1);

    model.setScript(whoamiThenAnswer());
    const second = await chat(a, ALICE);
    expect(second.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe('you are alice');
    expect((await fetch(page.url.replace(b.origin, a.origin))).status).toBe(400);
  });

  it('makes exactly one refresh grant for 5 loops at once across both replicas after the token expired', async () => {
    mcp.setExpiresIn(0);
    const first = await chat(a, ALICE);
    await consent(first.headers.get('x-agent-loop-authorize')!, 'alice');
    mcp.setExpiresIn(3600);
    model.setScript(whoamiThenAnswer());
    const answers = await Promise.all([a, b, a, b, a].map((replica) => chat(replica, ALICE)));
    expect(answers.map((answer) => answer.headers.get('x-agent-loop-stop'))).toEqual(Array(5).fill('final'));
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);
    const toolTexts = model.requests.flatMap((request) =>
      request.body.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    );
    expect(toolTexts).toEqual(Array(5).fill('you are alice'));
  });
});
