import type http from 'node:http';
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { agentLoop, localTrellis, skipWhenInternal, type AgentLoopOptions } from '../../lib';
import { echo, echoDescription, echoSchema } from './echo';
import { upstreamAgent, upstreamOrigin } from './gateway';

const silentLogger = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * This package mounted exactly as the README's "Use it" shows it, with one binding over an in-process Trellis and
 * `options` on top: the loop's own turns skip the body parser, and the normal handler is http-proxy-middleware with
 * a keep-alive agent, `fixRequestBody` and the `close` hook that stops the upstream call of a client that went away.
 */
export function agentLoopApp(options: AgentLoopOptions = {}): express.Express {
  const app = express();
  app.use(skipWhenInternal(express.json({ limit: '1mb' })));
  app.use(
    agentLoop({
      trellis: localTrellis([
        {
          name: 'echo',
          description: echoDescription,
          inputSchema: echoSchema,
          handler: (args: { text?: unknown }) => echo(String(args.text)),
        },
      ]),
      bindings: [{ name: 'bench', match: { model: '*' }, hierarchy: ['echo'] }],
      logger: silentLogger,
      ...options,
    }),
  );
  app.post('/v1/chat/completions', proxyTo(upstreamOrigin()));
  return app;
}

/** http-proxy-middleware to `target` with a keep-alive agent, `fixRequestBody` and the `close` hook (see above). */
export function proxyTo(target: string): express.RequestHandler {
  return createProxyMiddleware({
    target,
    changeOrigin: true,
    agent: upstreamAgent(),
    on: {
      proxyReq(proxyReq, req, res) {
        fixRequestBody(proxyReq, req as http.IncomingMessage);
        res.on('close', () => res.writableFinished || proxyReq.destroy());
      },
    },
  }) as express.RequestHandler;
}
