import axios from 'axios';
import type { Request } from 'express';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Readable } from 'node:stream';
import { keepAliveAgent, serve, upstreamAgent, upstreamOrigin } from '../lib/gateway';
import type { GeminiReply, GeminiTransport } from '../lib/gemini-handloop';
import { geminiHandLoopHandler } from '../lib/gemini-handloop';
import type { ChatReply, Transport } from '../lib/handloop';
import { handLoopHandler } from '../lib/handloop';
import type { MessagesReply, MessagesTransport } from '../lib/messages-handloop';
import { anthropicHeaders, messagesHandLoopHandler } from '../lib/messages-handloop';

/**
 * The floor of this package's design: the hand loop, each turn re-entering the app through axios to a proxy route.
 * On chat completions, and on Anthropic's Messages and Gemini's generateContent against the same scripted upstreams
 * as `agent-loop`'s on those wires.
 */
const client = axios.create({ httpAgent: keepAliveAgent() });
const selfUrl = (req: Request, path: string) => `http://127.0.0.1:${req.socket.localPort}${path}`;

const transport: Transport = {
  complete: async (body, req) => (await client.post<ChatReply>(selfUrl(req, '/upstream/chat/completions'), body)).data,
  stream: async (body, req) =>
    (await client.post<Readable>(selfUrl(req, '/upstream/chat/completions'), body, { responseType: 'stream' })).data,
};
const gemini: GeminiTransport = {
  complete: async (path, body, req) =>
    (await client.post<GeminiReply>(selfUrl(req, `/upstream-gemini${path}`), body)).data,
  stream: async (path, body, req) =>
    (await client.post<Readable>(selfUrl(req, `/upstream-gemini${path}`), body, { responseType: 'stream' })).data,
};
const messages: MessagesTransport = {
  complete: async (body, req) =>
    (
      await client.post<MessagesReply>(selfUrl(req, '/upstream-messages/v1/messages'), body, {
        headers: anthropicHeaders(req),
      })
    ).data,
  stream: async (body, req) =>
    (
      await client.post<Readable>(selfUrl(req, '/upstream-messages/v1/messages'), body, {
        headers: anthropicHeaders(req),
        responseType: 'stream',
      })
    ).data,
};

const app = express();
app.use(
  '/upstream',
  createProxyMiddleware({ target: `${upstreamOrigin()}/v1`, changeOrigin: true, agent: upstreamAgent() }),
);
app.use(
  '/upstream-gemini',
  createProxyMiddleware({ target: process.env.BENCH_UPSTREAM_GEMINI, changeOrigin: true, agent: upstreamAgent() }),
);
app.use(
  '/upstream-messages',
  createProxyMiddleware({ target: process.env.BENCH_UPSTREAM_MESSAGES, changeOrigin: true, agent: upstreamAgent() }),
);
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), handLoopHandler(transport));
app.post('/v1/messages', express.json({ limit: '1mb' }), messagesHandLoopHandler(messages));
app.post(/^\/v1beta\/models\//, express.json({ limit: '1mb' }), geminiHandLoopHandler(gemini));
serve(app);
