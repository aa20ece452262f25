import express5 from 'express';
import express4 from 'express4';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { agentLoop, isInternalRequest, type AgentLoopOptions } from '../../lib';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from './memory-logger';

export const expressVersions = [
  ['express 5', express5 as unknown as typeof express5],
  ['express 4', express4 as unknown as typeof express5],
] as const;

export interface Seen {
  internal: boolean;
  marker: boolean;
}

/**
 * A gateway as a user builds one: express.json(), a spy where a return-path injector would sit, agentLoop,
 * and the normal handler, an http-proxy-middleware proxy to `upstream`.
 */
export function buildGateway(upstream: string, options: AgentLoopOptions, express = express5) {
  const app = express();
  const seen: Seen[] = [];
  app.use(express.json({ limit: '5mb' }));
  app.use(function spy(req, _res, next) {
    const marker = req.headers['x-mcp-internal'] !== undefined;
    seen.push({ marker, internal: isInternalRequest(req) });
    next();
  });
  const loop: AgentLoopMiddleware = agentLoop({ logger: memoryLogger('error').logger, ...options });
  app.use(loop);
  app.post(
    ['/v1/chat/completions', '/v1/responses', '/v1/messages', /^\/v1(beta)?\/models\//],
    createProxyMiddleware({
      target: new URL(upstream).origin,
      changeOrigin: true,
      on: {
        proxyReq(proxyReq, req, res) {
          fixRequestBody(proxyReq, req);
          // as the README asks of a normal handler: a client that goes away cancels the upstream call
          res.on('close', () => res.writableFinished || proxyReq.destroy());
        },
      },
    }),
  );
  return { app, seen, loop };
}
