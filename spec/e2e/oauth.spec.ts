import { startModelServer, byTurn, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  ALICE,
  BOB,
  ask,
  authorizationOf,
  chat,
  consent,
  lastToolText,
  signIn,
  startGateway,
  whoamiThenAnswer,
  type Gateway,
} from './oauth-gateway';

describe('OAuth-protected MCP servers: each user signs in', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  beforeEach(async () => {
    model = await startModelServer();
    mcp = await startOAuthMcpServer();
    gateway = await startGateway(model, mcp);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await gateway.close();
    await mcp.close();
    await model.close();
  });

  it('answers with the consent link, not the model; after consent the loop runs with the user’s token', async () => {
    const first = await chat(gateway, ALICE);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
    const url = first.headers.get('x-agent-loop-authorize')!;
    expect(first.body.choices[0].message.content).toBe(
      `[agent-loop] ${mcp.url} needs your permission: open ${url}, then send your message again.`,
    );
    expect(model.requests).toHaveLength(0);
    expect(url.startsWith(`${gateway.origin}/oauth/callback/connect?state=`)).toBe(true);
    const authorization = await authorizationOf(url);
    const asked = authorization.searchParams;
    expect(authorization.origin).toBe(new URL(mcp.issuer).origin);
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('resource')).toBe(mcp.url);
    expect(asked.get('scope')).toBe('notes:read');
    expect(mcp.registrations).toHaveLength(1);
    expect(mcp.registrations[0]).toMatchObject({
      redirect_uris: [`${gateway.origin}/oauth/callback`],
      token_endpoint_auth_method: 'none',
    });

    const page = await consent(url, 'alice');
    expect(page.url.startsWith(`${gateway.origin}/oauth/callback?`)).toBe(true);
    expect(page.text).toContain(`${mcp.url} is connected`);

    model.setScript(whoamiThenAnswer());
    const second = await chat(gateway, ALICE);
    expect(second.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe('you are alice');
  });

  it('keeps two users apart: each call carries its own user’s token, and one user’s consent is not another’s', async () => {
    await signIn(gateway, ALICE, 'alice');
    const bobFirst = await chat(gateway, BOB);
    expect(bobFirst.headers.get('x-agent-loop-stop')).toBe('authorization');
    await consent(bobFirst.headers.get('x-agent-loop-authorize')!, 'bob');
    model.setScript(whoamiThenAnswer());
    await chat(gateway, BOB);
    expect(lastToolText(model)).toBe('you are bob');
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('you are alice');
  });

  it('takes the user from oauth.user, a header the operator’s authentication sets', async () => {
    await gateway.close();
    gateway = await startGateway(model, mcp, { user: 'x-user-id' });
    await signIn(gateway, ALICE, 'alice', { 'x-user-id': 'u-1' });
    const other = await chat(gateway, ALICE, ask(), { 'x-user-id': 'u-2' });
    expect(other.headers.get('x-agent-loop-stop')).toBe('authorization');
  });

  it('does not sign in to a server whose metadata names another resource: its calls fail readably', async () => {
    mcp.setResource('http://127.0.0.1:1/elsewhere');
    model.setScript(whoamiThenAnswer());
    const answer = await chat(gateway, ALICE);
    expect(answer.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toMatch(/^tool error: Trellis at .* failed: .*http:\/\/127\.0\.0\.1:1\/elsewhere/);
    expect(mcp.authorizations).toEqual([]);
  });

  it('runs the loop for a request with no user, each call failing readably', async () => {
    model.setScript(whoamiThenAnswer());
    const response = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask()),
    });
    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe("tool error: 'whoami' needs a signed-in user");
  });

  it('refreshes a token about to expire with exactly one refresh grant for 5 loops at once', async () => {
    mcp.setExpiresIn(0);
    await signIn(gateway, ALICE, 'alice');
    mcp.setExpiresIn(3600);
    model.setScript(whoamiThenAnswer());
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat(gateway, ALICE)));
    expect(answers.map((answer) => answer.headers.get('x-agent-loop-stop'))).toEqual(Array(5).fill('final'));
    expect(mcp.grants.map((grant) => grant.type)).toEqual(['authorization_code', 'refresh_token']);
    await chat(gateway, ALICE);
    expect(mcp.grants).toHaveLength(2);
  });

  it('brings the consent back when the refresh grant is refused (invalid_grant)', async () => {
    // the SDK's own console.warn names the refusal (never a token)
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    mcp.setExpiresIn(0);
    await signIn(gateway, ALICE, 'alice');
    mcp.setExpiresIn(3600);
    mcp.revokeAll();
    const again = await chat(gateway, ALICE);
    expect(again.headers.get('x-agent-loop-stop')).toBe('authorization');
    expect(again.body.choices[0].message.content).toContain('needs your permission');
    await consent(again.headers.get('x-agent-loop-authorize')!, 'alice');
    model.setScript(whoamiThenAnswer());
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('you are alice');
  });

  it('brings the consent back when the server refuses a fresh token mid-loop (401)', async () => {
    await signIn(gateway, ALICE, 'alice');
    model.setScript(whoamiThenAnswer());
    await chat(gateway, ALICE);
    mcp.revokeAll();
    const again = await chat(gateway, ALICE);
    expect(again.headers.get('x-agent-loop-stop')).toBe('authorization');
    expect(again.body.choices[0].message.content).toMatch(/^\[agent-loop\] .* needs your permission: open http/);
  });

  it('stops a code-mode program at a nested call that needs sign-in and answers with the consent; after sign-in the next message runs the program again', async () => {
    await gateway.close();
    const notes = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['whoami', 'admin_note'] };
    gateway = await startGateway(model, mcp, {}, { bindings: [{ ...notes, codeMode: { timeoutSec: 60 } }] });
    await signIn(gateway, ALICE, 'alice');
    const code =
      "const me = await tools.whoami({});\nlet note;\ntry { note = await tools.admin_note({}); } catch (error) { note = error.message; }\nconsole.log('went on');\nawait tools.whoami({});\nreturn { me, note };";
    const program = byTurn([{ toolCalls: [{ id: 'c', name: 'run_code', arguments: { code } }] }, { content: 'done' }]);
    model.setScript(program);
    const before = model.requests.length;
    const stepUp = await chat(gateway, ALICE);
    expect(stepUp.headers.get('x-agent-loop-stop')).toBe('authorization');
    // whoami and run_code ran; the program stopped at admin_note (no second whoami) and the model read nothing of it
    expect(stepUp.headers.get('x-agent-loop-tool-calls')).toBe('2');
    expect(model.requests.length - before).toBe(1);
    const url = stepUp.headers.get('x-agent-loop-authorize')!;
    expect(stepUp.body.choices[0].message.content).toBe(
      `[agent-loop] ${mcp.url} needs your permission: open ${url}, then send your message again.`,
    );

    await consent(url, 'alice');
    model.setScript(program);
    const again = await chat(gateway, ALICE);
    expect(again.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe('{"return":{"me":"you are alice","note":"noted for alice"},"log":["went on"]}');
  });

  it('asks the person again for the wider scope a 403 insufficient_scope names (step-up), then runs the call', async () => {
    await signIn(gateway, ALICE, 'alice');
    model.setScript(byTurn([{ toolCalls: [{ id: 'a', name: 'admin_note' }] }, { content: 'done' }]));
    const stepUp = await chat(gateway, ALICE);
    expect(stepUp.headers.get('x-agent-loop-stop')).toBe('authorization');
    const url = stepUp.headers.get('x-agent-loop-authorize')!;
    expect((await authorizationOf(url)).searchParams.get('scope')?.split(' ').sort()).toEqual([
      'notes:admin',
      'notes:read',
    ]);
    await consent(url, 'alice');
    await chat(gateway, ALICE);
    expect(lastToolText(model)).toBe('noted for alice');
  });

  it('stops asking for a scope the authorization server will not grant after two step-ups in a row', async () => {
    mcp.grantOnly(['notes:read']);
    await signIn(gateway, ALICE, 'alice');
    model.setScript(byTurn([{ toolCalls: [{ id: 'a', name: 'admin_note' }] }, { content: 'done' }]));
    for (let ask = 0; ask < 2; ask++) {
      const stepUp = await chat(gateway, ALICE);
      expect(stepUp.headers.get('x-agent-loop-stop')).toBe('authorization');
      await consent(stepUp.headers.get('x-agent-loop-authorize')!, 'alice');
    }
    const refused = await chat(gateway, ALICE);
    expect(refused.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe(
      `tool error: ${mcp.url} still refuses the call for want of scope 'notes:read notes:admin' after 2 requests for it`,
    );
  });

  describe('the callback refuses, with a 400 page and nothing stored', () => {
    const tokens = async () =>
      ((await (await fetch(`${gateway.origin}/admin/api/oauth`)).json()) as { tokens: unknown[] }).tokens;
    const linkFor = async () => (await chat(gateway, ALICE)).headers.get('x-agent-loop-authorize')!;

    it.each([
      ['a forged state', `?code=abc&state=${'x'.repeat(40)}`],
      ['no code', '?state=abc'],
    ])('%s', async (_case, query) => {
      const response = await fetch(`${gateway.origin}/oauth/callback${query}`);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('Nothing was stored');
      expect(await tokens()).toEqual([]);
    });

    it('an error from the authorization server', async () => {
      mcp.answerNext({ error: 'access_denied' });
      const page = await consent(await linkFor(), 'alice');
      expect(page.status).toBe(400);
      expect(page.text).toContain('the authorization server answered &#39;access_denied&#39;');
      expect(await tokens()).toEqual([]);
    });

    it('an iss that is not the authorization server’s (RFC 9207)', async () => {
      mcp.answerNext({ iss: 'http://127.0.0.1:1/' });
      const page = await consent(await linkFor(), 'alice');
      expect(page.status).toBe(400);
      expect(mcp.grants).toEqual([]);
      expect(await tokens()).toEqual([]);
    });

    it('a replayed state', async () => {
      const page = await consent(await linkFor(), 'alice');
      expect(page.status).toBe(200);
      const replay = await fetch(page.url);
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('the state is replayed');
      expect(mcp.grants).toHaveLength(1);
    });

    it('an expired state', async () => {
      const link = await linkFor();
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60 * 1000);
      const page = await consent(link, 'alice');
      expect(page.status).toBe(400);
      expect(page.text).toContain('the state is expired');
      expect(mcp.grants).toEqual([]);
    });
  });

  it('lists who holds tokens in the admin API (never a token) and forgets one user', async () => {
    await signIn(gateway, ALICE, 'alice');
    const listed = (await (await fetch(`${gateway.origin}/admin/api/oauth`)).json()) as {
      tokens: { server: string; user: string; expiresAt: string }[];
    };
    expect(listed.tokens).toEqual([
      {
        server: mcp.url,
        user: expect.stringMatching(/^[\w-]{22}$/),
        expiresAt: expect.any(String),
        scope: 'notes:read',
        refreshable: true,
      },
    ]);
    const { server, user } = listed.tokens[0];
    const forgotten = await fetch(`${gateway.origin}/admin/api/oauth/${encodeURIComponent(server)}/${user}`, {
      method: 'DELETE',
    });
    expect(forgotten.status).toBe(200);
    expect(
      (await fetch(`${gateway.origin}/admin/api/oauth/${encodeURIComponent(server)}/${user}`, { method: 'DELETE' }))
        .status,
    ).toBe(404);
    expect((await chat(gateway, ALICE)).headers.get('x-agent-loop-stop')).toBe('authorization');
  });
});

describe('the consent answer on each wire, JSON and streamed', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  beforeAll(async () => {
    model = await startModelServer();
    mcp = await startOAuthMcpServer();
    gateway = await startGateway(model, mcp);
  });
  afterAll(async () => {
    await gateway.close();
    await mcp.close();
    await model.close();
  });

  const bodies = {
    '/v1/chat/completions': ask(),
    '/v1/responses': { model: 'agent-1', input: 'who am I?' },
    '/v1/messages': { model: 'agent-1', max_tokens: 100, messages: [{ role: 'user', content: 'who am I?' }] },
    '/v1beta/models/agent-1:generateContent': { contents: [{ role: 'user', parts: [{ text: 'who am I?' }] }] },
    '/v1beta/models/agent-1:streamGenerateContent?alt=sse': {
      contents: [{ role: 'user', parts: [{ text: 'who am I?' }] }],
    },
  };

  it.each([
    ['/v1/chat/completions', false],
    ['/v1/chat/completions', true],
    ['/v1/responses', false],
    ['/v1/responses', true],
    ['/v1/messages', false],
    ['/v1/messages', true],
    ['/v1beta/models/agent-1:generateContent', undefined],
    ['/v1beta/models/agent-1:streamGenerateContent?alt=sse', undefined],
  ] as const)('%s (stream: %s)', async (path, stream) => {
    const response = await fetch(`${gateway.origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${ALICE}`,
        'x-api-key': ALICE,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ ...bodies[path], ...(stream === undefined ? {} : { stream }) }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-agent-loop-stop')).toBe('authorization');
    const url = response.headers.get('x-agent-loop-authorize')!;
    const text = await response.text();
    expect(text).toContain(
      JSON.stringify(`[agent-loop] ${mcp.url} needs your permission: open ${url}, then send your message again.`).slice(
        1,
        -1,
      ),
    );
    expect(model.requests).toHaveLength(0);
  });

  it('reads as a normal answer to the official clients, the link in the header beside it', async () => {
    const openai = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey: ALICE, maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'agent-1', messages: [{ role: 'user', content: 'who am I?' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe(
      `[agent-loop] ${mcp.url} needs your permission: open ${response.headers.get('x-agent-loop-authorize')}, then send your message again.`,
    );
    const anthropic = new Anthropic({ baseURL: gateway.origin, apiKey: ALICE, maxRetries: 0 });
    const stream = anthropic.messages.stream({
      model: 'agent-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'who am I?' }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^\[agent-loop\] .* needs your permission: open http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\/connect\?state=\S+, then send your message again\.$/,
        ),
      },
    ]);
  });
});
