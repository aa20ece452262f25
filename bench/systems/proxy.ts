import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { serve, upstreamAgent, upstreamOrigin } from '../lib/gateway';

/** The gateway with no loop: one upstream call per request, the floor of one turn. */
const app = express();
app.post(
  '/v1/chat/completions',
  createProxyMiddleware({ target: upstreamOrigin(), changeOrigin: true, agent: upstreamAgent() }),
);
serve(app);
