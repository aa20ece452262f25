import http from 'node:http';
import https from 'node:https';
import express, { type Express } from 'express';
import { adminKeyOf } from '../admin/gateway-admin';
import { clientKeysOf, requireClientKey } from './client-keys';
import { INFERENCE_ROUTES, routeGuard } from './routes';
import { healthRoutes, UpstreamHealth } from './health';
import { skipWhenInternal } from '../self-call/marker';
import { IDLE_SOCKET_MS } from '../self-call/pooled-connection';
import { agentLoop, type AgentLoopMiddleware } from '../middleware';
import { optionalPeer } from '../shared/optional-peer';
import { defaultLogger } from '../shared/logger';
import type { Logger } from '../types';
import { upstreamKeyOf } from './upstream-key';
import { validGatewayConfig, type GatewayConfig } from './options';
import { refusedBody } from './body-refusal';
import { forwardingTo } from './forwarding';

/** `metrics` left out: on when prom-client is installed, else off with one line saying why `/metrics` answers 404. */
function metricsWhenInstalled(logger: Logger): Record<string, never> | false {
  if (optionalPeer('prom-client') !== undefined) return {};
  logger.info(
    'agent-loop metrics are off: prom-client is not installed (npm install prom-client serves them on /metrics)',
  );
  return false;
}

/**
 * A ready gateway: express.json() (skipped by the loop's own turns), the agent loop, and a proxy to the upstream as
 * the normal handler; `/healthz`, `/readyz`, and `/metrics` (on by default when prom-client is installed).
 */
export function createGateway(config: GatewayConfig): Express {
  const valid = validGatewayConfig(config);
  const {
    host: _host,
    port: _port,
    upstream,
    bodyLimit,
    metrics,
    admin,
    clientKeys: _keys,
    clientKeysEnv: _keysEnv,
    ...options
  } = valid;
  const adminKey = adminKeyOf(admin);
  const keys = clientKeysOf(valid);
  const clientKey = keys && requireClientKey(keys);
  const apiKey = upstreamKeyOf(upstream.apiKeyEnv);
  const loop: AgentLoopMiddleware = agentLoop({
    ...options,
    metrics: metrics ?? metricsWhenInstalled(options.logger ?? defaultLogger()),
  });
  const health = new UpstreamHealth(upstream.url, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
  const app = express();
  app.disable('x-powered-by');
  app.locals.agentLoop = loop;
  healthRoutes(app, loop, health);
  if (adminKey) app.use('/admin', loop.admin({ key: adminKey }));
  app.use(loop.oauthCallbacks);
  const registry = loop.metrics;
  if (registry) {
    app.get('/metrics', ...(clientKey ? [clientKey] : []), function metricsEndpoint(_req, res, next) {
      registry.metrics().then((text) => res.type(registry.contentType).send(text), next);
    });
  }
  // Routes answered above need no client key and may have any path. Past this point a request needs a client key
  // (when the config has any) and a plain path that `upstream.routes` forwards; the loop's own turns pass.
  if (clientKey) app.use(skipWhenInternal(clientKey));
  app.use(skipWhenInternal(routeGuard(upstream.routes ?? INFERENCE_ROUTES)));
  // The loop's own turns need no parsed body (the loop and every injector pass them on): unparsed, their raw body
  // streams through the proxy as the loop serialised it, with no JSON.parse here and no re-serialisation in
  // fixRequestBody. Only a verified marker skips it; a forged one gets the whole pipeline.
  app.use(skipWhenInternal(express.json({ limit: bodyLimit })));
  app.use(loop);
  const agent: http.Agent = new (upstream.url.startsWith('https:') ? https : http).Agent({
    keepAlive: true,
    timeout: IDLE_SOCKET_MS,
  });
  const forwarding = (target: string) => forwardingTo(target, agent, health, apiKey, Boolean(clientKey));
  app.use('/v1', forwarding(upstream.url));
  // Gemini's clients ask /v1beta/models/...: the same path at the upstream's origin
  app.use('/v1beta', forwarding(`${new URL(upstream.url).origin}/v1beta`));
  app.use(refusedBody);
  return app;
}
