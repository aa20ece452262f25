import axios from 'axios';
import type { Request } from 'express';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Readable } from 'node:stream';
import { keepAliveAgent, serve, upstreamAgent, upstreamOrigin } from '../lib/gateway';
import type { ChatReply, Transport } from '../lib/handloop';
import { handLoopHandler } from '../lib/handloop';

/** The floor of this package's design: the hand loop, each turn re-entering the app through axios to a proxy route. */
const client = axios.create({ httpAgent: keepAliveAgent() });
const selfUrl = (req: Request) => `http://127.0.0.1:${req.socket.localPort}/upstream/chat/completions`;

const transport: Transport = {
  complete: async (body, req) => (await client.post<ChatReply>(selfUrl(req), body)).data,
  stream: async (body, req) => (await client.post<Readable>(selfUrl(req), body, { responseType: 'stream' })).data,
};

const app = express();
app.use(
  '/upstream',
  createProxyMiddleware({ target: `${upstreamOrigin()}/v1`, changeOrigin: true, agent: upstreamAgent() }),
);
app.post('/v1/chat/completions', express.json({ limit: '1mb' }), handLoopHandler(transport));
serve(app);
