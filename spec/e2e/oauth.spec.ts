import http from 'node:http';
import express from 'express';
import { agentLoop, type AgentLoopOptions } from '../../lib';
import { onLoopback, type OnLoopback } from '../../fixtures/loopback';
import { byTurn, startModelServer, type ModelServer } from '../../fixtures/model-server';
import { LOGIN_HEADER, startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { memoryLogger } from '../helpers/memory-logger';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';

interface Gateway extends OnLoopback {
  lines: Record<string, unknown>[];
  loop: ReturnType<typeof agentLoop>;
}

async function startGateway(model: ModelServer, mcp: OAuthMcpServer, oauth: Record<string, unknown> = {}, options: AgentLoopOptions = {}): Promise<Gateway> {
  const server = http.createServer();
  const listening = await onLoopback(server);
  const { logger, lines } = memoryLogger('debug');
  const app = express();
  app.use(express.json());
  const loop = agentLoop({
    logger,
    trellis: { mcp: { url: mcp.url, oauth: { redirectUrl: `${listening.origin}/oauth/callback`, ...oauth } } },
    bindings: [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: ['whoami', 'admin_note'] }],
    ...options,
  });
  app.use(loop);
  app.use('/admin', loop.admin({ auth: false }));
  app.post(['/v1/chat/completions', '/v1/responses', '/v1/messages'], createProxyMiddleware({ target: new URL(model.url).origin, changeOrigin: true, on: { proxyReq: fixRequestBody } }));
  server.on('request', app);
  return { ...listening, lines, loop, close: async () => (await loop.close(), await listening.close()) };
}

const ask = (content = 'who am I?') => ({ model: 'agent-1', messages: [{ role: 'user', content }] });

async function chat(gateway: Gateway, key: string, body: Record<string, unknown> = ask()) {
  const response = await fetch(`${gateway.origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { choices: { message: { content: string } }[] } };
}

/** The person's browser: opens the link, logs in as `login` and consents at the authorization server, lands on the callback. */
async function consent(url: string, login: string) {
  const response = await fetch(url, { headers: { [LOGIN_HEADER]: login } });
  return { status: response.status, url: response.url, text: await response.text() };
}

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
    await gateway.close();
    await mcp.close();
    await model.close();
  });

  it('answers with the consent link, not the model; after consent the loop runs with the user’s token', async () => {
    const first = await chat(gateway, 'alice-key-0123456789');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
    const url = first.headers.get('x-agent-loop-authorize')!;
    expect(first.body.choices[0].message.content).toBe(`[agent-loop] ${mcp.url} needs your permission: open ${url}, then send your message again.`);
    expect(model.requests).toHaveLength(0);
    expect(new URL(url).origin).toBe(new URL(mcp.issuer).origin);
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    expect(new URL(url).searchParams.get('resource')).toBe(mcp.url);

    const page = await consent(url, 'alice');
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${gateway.origin}/oauth/callback?${new URL(page.url).searchParams}`);
    expect(page.text).toContain(`${mcp.url} is connected`);

    model.setScript(byTurn([{ toolCalls: [{ id: 'w', name: 'whoami' }] }, { content: 'you are alice' }]));
    const second = await chat(gateway, 'alice-key-0123456789');
    expect(second.headers.get('x-agent-loop-stop')).toBe('final');
    expect(model.requests[1].body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'you are alice' });
  });
});
