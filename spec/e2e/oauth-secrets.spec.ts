import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startMessagesServer, type MessagesServer } from '../../fixtures/messages-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import { ALICE, chat, consent, startGateway, whoamiThenAnswer, type Gateway } from './oauth-gateway';

const CLIENT_ID = 'agent-loop-confidential';
const CLIENT_SECRET = 'cs-7f3a9c1e5b2d8f4a6c0e';

const bodies = {
  '/v1/chat/completions': { model: 'agent-1', messages: [{ role: 'user', content: 'who am I?' }] },
  '/v1/responses': { model: 'agent-1', input: 'who am I?' },
  '/v1/messages': { model: 'agent-1', max_tokens: 100, messages: [{ role: 'user', content: 'who am I?' }] },
};

/**
 * Every output the gateway has, gathered over a confidential client's sign-ins on the three wires (JSON and
 * streamed), a refused callback, a token the server stopped taking (401) and a refresh refused (`invalid_grant`):
 * none holds an access or refresh token, a code, a PKCE verifier or the client secret.
 */
describe('OAuth secrets stay out of every output', () => {
  let model: ModelServer;
  let responses: ResponsesServer;
  let messages: MessagesServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(async () => {
    trace.setGlobalTracerProvider(tracer);
    [model, responses, messages, mcp] = await Promise.all([
      startModelServer(),
      startResponsesServer(),
      startMessagesServer(),
      startOAuthMcpServer(),
    ]);
    gateway = await startGateway(
      model,
      mcp,
      { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      { metrics: {}, telemetry: { captureContent: true } },
      { '/v1/responses': responses.url, '/v1/messages': messages.url },
    );
    mcp.addClient({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${gateway.origin}/oauth/callback`],
      token_endpoint_auth_method: 'client_secret_post',
    });
  });
  afterAll(async () => {
    trace.disable();
    await tracer.shutdown();
    await gateway.close();
    await Promise.all([model.close(), responses.close(), messages.close(), mcp.close()]);
  });

  async function send(path: keyof typeof bodies, stream: boolean) {
    const response = await fetch(`${gateway.origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${ALICE}`,
        'x-api-key': ALICE,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ ...bodies[path], stream }),
    });
    return { headers: response.headers, text: await response.text() };
  }

  it('holds none in answers, pages, log lines, spans, metrics, the admin API, errors or what the models read', async () => {
    const warnings: unknown[][] = [];
    const warn = jest.spyOn(console, 'warn').mockImplementation((...args) => void warnings.push(args));
    const outputs: string[] = [];
    const keep = (answer: { headers: Headers; text: string }) =>
      outputs.push(answer.text, JSON.stringify([...answer.headers]));

    const first = await send('/v1/chat/completions', false);
    keep(first);
    mcp.answerNext({ iss: 'http://127.0.0.1:1/' });
    const refused = await consent(first.headers.get('x-agent-loop-authorize')!, 'alice');
    expect(refused.status).toBe(400);
    outputs.push(refused.text);
    const again = await send('/v1/chat/completions', true);
    keep(again);
    const page = await consent(again.headers.get('x-agent-loop-authorize')!, 'alice');
    expect(page.status).toBe(200);
    outputs.push(page.text, page.url.replace(/code=[^&]+/, ''));

    model.setScript(whoamiThenAnswer());
    responses.setScript([{ calls: [{ name: 'whoami' }] }, { text: 'done' }]);
    messages.setScript([{ toolUses: [{ name: 'whoami' }] }, { text: 'done' }]);
    for (const path of Object.keys(bodies) as (keyof typeof bodies)[])
      for (const stream of [false, true]) keep(await send(path, stream));
    const read = [model.requests, responses.requests, messages.requests].map((requests) => JSON.stringify(requests));
    for (const upstream of read) expect(upstream.match(/you are alice/g)?.length).toBeGreaterThanOrEqual(2);
    outputs.push(...read);

    mcp.revokeAll();
    const unauthorized = await chat(gateway, ALICE);
    expect(unauthorized.headers.get('x-agent-loop-stop')).toBe('authorization');
    outputs.push(JSON.stringify(unauthorized.body));
    mcp.setExpiresIn(0);
    await consent(unauthorized.headers.get('x-agent-loop-authorize')!, 'alice');
    mcp.revokeAll();
    const invalidGrant = await chat(gateway, ALICE);
    expect(invalidGrant.headers.get('x-agent-loop-stop')).toBe('authorization');
    outputs.push(JSON.stringify(invalidGrant.body));
    warn.mockRestore();

    outputs.push(await (await fetch(`${gateway.origin}/admin/api/oauth`)).text());
    outputs.push(await (await fetch(`${gateway.origin}/admin/api/loops`)).text());
    outputs.push(JSON.stringify(gateway.lines), await gateway.loop.metrics!.metrics(), JSON.stringify(warnings));
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    outputs.push(
      JSON.stringify(spans.map(({ name, attributes, events, status }) => ({ name, attributes, events, status }))),
    );

    const kinds = mcp.secrets.map((secret) => secret.slice(0, 3));
    expect(kinds).toEqual(expect.arrayContaining(['at-', 'rt-', CLIENT_SECRET.slice(0, 3)]));
    expect(mcp.grants.map((grant) => grant.type)).toContain('authorization_code');
    const all = outputs.join('\n');
    for (const secret of mcp.secrets) expect(all).not.toContain(secret);
  });
});
