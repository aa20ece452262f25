import http from 'node:http';
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { agentLoop, type AgentLoopOptions } from '../../lib';
import { onLoopback, type OnLoopback } from '../../lib/testing/loopback';
import { byTurn, type ModelServer } from '../../fixtures/model-server';
import { LOGIN_HEADER, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { memoryLogger } from '../helpers/memory-logger';

export interface Gateway extends OnLoopback {
  lines: Record<string, unknown>[];
  loop: ReturnType<typeof agentLoop>;
  /** the app agentLoop is mounted on, for a second listener (an https one) */
  app: express.Express;
}

type WirePath = '/v1/chat/completions' | '/v1/responses' | '/v1/messages';

/**
 * A gateway on loopback: express.json, agentLoop over the OAuth fixture's server (callback at
 * `<origin>/oauth/callback` unless `oauth.redirectUrl` says another), its admin API without auth, and a proxy as the
 * normal handler of the three wires: to the scripted model, or to the upstream `upstreams` names for a wire.
 */
export async function startGateway(
  model: ModelServer,
  mcp: Pick<OAuthMcpServer, 'url'>,
  oauth: Record<string, unknown> = {},
  options: AgentLoopOptions = {},
  upstreams: Partial<Record<WirePath, string>> = {},
): Promise<Gateway> {
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
  for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/messages'] as const) {
    const target = new URL(upstreams[path] ?? model.url).origin;
    app.post(path, createProxyMiddleware({ target, changeOrigin: true, on: { proxyReq: fixRequestBody } }));
  }
  server.on('request', app);
  return { ...listening, lines, loop, app, close: async () => (await loop.close(), await listening.close()) };
}

export const ask = (content = 'who am I?') => ({ model: 'agent-1', messages: [{ role: 'user', content }] });

export async function chat(
  gateway: Gateway,
  key: string,
  body: Record<string, unknown> = ask(),
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${gateway.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { choices: { message: { content: string } }[] },
  };
}

/** The person's browser: opens the link, logs in as `login` and consents at the authorization server, lands on the callback. */
export async function consent(url: string, login: string) {
  const response = await fetch(url, { headers: { [LOGIN_HEADER]: login } });
  return { status: response.status, url: response.url, text: await response.text() };
}

export const ALICE = 'alice-key-0123456789';
export const BOB = 'bob-key-0123456789';

/** Signs `key`'s user in as `login`: the first message gets the link, the browser follows it to the callback. */
export async function signIn(gateway: Gateway, key: string, login: string, headers: Record<string, string> = {}) {
  const first = await chat(gateway, key, ask(), headers);
  expect(first.headers.get('x-agent-loop-stop')).toBe('authorization');
  const page = await consent(first.headers.get('x-agent-loop-authorize')!, login);
  expect(page.status).toBe(200);
  return page;
}

export const whoamiThenAnswer = () => byTurn([{ toolCalls: [{ id: 'w', name: 'whoami' }] }, { content: 'done' }]);

/** The last tool result the model read. */
export const lastToolText = (model: ModelServer) =>
  model.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .at(-1)?.content;
