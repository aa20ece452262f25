import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { agentLoop, localTrellis, skipWhenInternal } from '../../lib';
import { echo, echoDescription, echoSchema } from '../lib/echo';
import { serve, upstreamAgent, upstreamOrigin } from '../lib/gateway';

/** This package: agentLoop with one binding and an in-process Trellis, the proxy as the normal handler. */
const silentLogger = { error() {}, warn() {}, info() {}, debug() {} };

const app = express();
// As the README's "Use it" sets it up: the loop's own turns skip the parser and stream through the proxy unparsed.
app.use(skipWhenInternal(express.json({ limit: '1mb' })));
app.use(
  agentLoop({
    trellis: localTrellis([
      { name: 'echo', description: echoDescription, inputSchema: echoSchema, handler: (args: { text?: unknown }) => echo(String(args.text)) },
    ]),
    bindings: [{ name: 'bench', match: { model: '*' }, hierarchy: ['echo'] }],
    logger: silentLogger,
  }),
);
// The user's normal handler, as the README's "Use it" shows it: with a keep-alive agent.
app.post('/v1/chat/completions', createProxyMiddleware({ target: upstreamOrigin(), changeOrigin: true, agent: upstreamAgent(), on: { proxyReq: fixRequestBody } }));
serve(app);
