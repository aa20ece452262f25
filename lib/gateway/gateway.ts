import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import Joi from 'joi';
import { ADMIN_HINT, adminConfigSchema, adminKeyOf, type GatewayAdminConfig } from '../admin/gateway-admin';
import { clientKeysOf, MIN_CLIENT_KEY_CHARS, requireClientKey } from './client-keys';
import { INFERENCE_ROUTES, isRoute, routeGuard } from './routes';
import { healthRoutes, UpstreamHealth } from './health';
import { skipWhenInternal } from '../self-call/marker';
import { IDLE_SOCKET_MS } from '../self-call/pooled-connection';
import { agentLoop, type AgentLoopMiddleware } from '../middleware';
import {
  defaulted,
  option,
  required,
  schemaOf,
  schemasOf,
  validator,
  type OptionsIn,
  type OptionsOut,
} from '../options/declaration';
import { loopOptions, type AgentLoopOptions } from '../options/agent-loop';
import { openAiError } from '../shared/openai-error';
import { parsedOrUndefined } from '../loop/turn-stream';
import { jsonKind } from '../loop/refused-request';
import { errorBodyFor } from '../wire/wires';
import { optionalPeer } from '../shared/optional-peer';
import { defaultLogger } from '../shared/logger';
import type { Logger } from '../types';
import { setUpstreamKey, upstreamKeyOf } from './upstream-key';

/** what express.json() takes as its `limit` */
const isSize = (value: unknown) =>
  (Number.isInteger(value) && (value as number) > 0) ||
  (typeof value === 'string' && /^\d+(\.\d+)? ?(b|kb|mb|gb)$/i.test(value));

const upstreamOptions = {
  url: required<string>({
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    hint: "it must be the upstream's OpenAI-compatible base URL, e.g. 'http://127.0.0.1:11434/v1'",
  }),
  apiKeyEnv: option<string>({
    schema: Joi.string(),
    hint: "it must name an environment variable holding the upstream's API key, e.g. 'OPENAI_API_KEY'",
  }),
  /** what is forwarded under `/v1`, as `METHOD path` (default `INFERENCE_ROUTES`) */
  routes: option<string[]>({
    schema: Joi.array().items(
      Joi.string().custom((value, helpers) => (isRoute(value) ? value : helpers.error('any.invalid'))),
    ),
    hint: `it must list what the gateway forwards under /v1 as 'METHOD path' (a segment * matches any one), e.g. ${JSON.stringify(INFERENCE_ROUTES.slice(0, 2))}`,
  }),
};

/** What only createGateway's config holds, beside agentLoop's options (which agentLoop checks). */
export const gatewayOptions = {
  host: defaulted<string>({
    schema: Joi.string().default('127.0.0.1'),
    hint: "it must be a host name or address to listen on, e.g. '127.0.0.1'",
  }),
  port: defaulted<number>({
    schema: Joi.number().integer().min(0).max(65535).default(3000),
    hint: 'it must be a port number from 0 to 65535, e.g. 3000',
  }),
  upstream: required<OptionsIn<typeof upstreamOptions>>({
    schema: schemaOf(upstreamOptions),
    hint: "it must be { url: 'http://127.0.0.1:11434/v1', apiKeyEnv?: 'OPENAI_API_KEY' }",
    inner: upstreamOptions,
  }),
  /**
   * largest request body accepted from a client, e.g. '10mb' or bytes (the loop's own turns skip the parser, so it does
   * not bound them)
   */
  bodyLimit: defaulted<string | number>({
    schema: Joi.any()
      .custom((value, helpers) => (isSize(value) ? value : helpers.error('any.invalid')))
      .default('10mb'),
    hint: "it must be a size in b, kb, mb or gb, or a number of bytes, e.g. '10mb'",
  }),
  /** keys a client may send (`Authorization: Bearer <key>` or `x-api-key: <key>`) */
  clientKeys: option<string[]>({
    schema: Joi.array().items(Joi.string().min(MIN_CLIENT_KEY_CHARS)).min(1),
    hint: `it must be a list of keys of at least ${MIN_CLIENT_KEY_CHARS} characters each that clients send as Authorization: Bearer <key>, or use clientKeysEnv`,
  }),
  /** an environment variable holding more, separated by commas or white space */
  clientKeysEnv: option<string>({
    schema: Joi.string(),
    hint: "it must name an environment variable holding the client keys, separated by commas, e.g. 'AGENT_LOOP_CLIENT_KEYS'",
  }),
  /** the admin API and page at `/admin`, behind the key in the environment variable `keyEnv` */
  admin: option<GatewayAdminConfig>({
    schema: adminConfigSchema,
    hint: ADMIN_HINT,
    doc: {
      range: '`{ keyEnv }`: the environment variable holding the admin key (16+ characters)',
      fallback: 'none: no admin routes',
      does: 'the [admin API and page](admin.md#admin-api-and-page) at `/admin`; in your own app, `loop.admin({ key })` or `loop.admin({ auth: false })`',
    },
  }),
};

export type GatewayConfig = AgentLoopOptions & OptionsIn<typeof gatewayOptions>;

/**
 * The config once validated: the gateway's own keys with their defaults, agentLoop's options as given (agentLoop checks
 * them).
 */
type ValidGatewayConfig = AgentLoopOptions & OptionsOut<typeof gatewayOptions>;

const { admin, ...listened } = schemasOf(gatewayOptions);

/**
 * agentLoop checks its own options; listed here so that a misspelt key is named among all the keys a config may hold.
 */
const loopKeys = Object.keys(loopOptions).map((key) => [key, Joi.any()]);

const gatewaySchema = Joi.object({ ...listened, ...Object.fromEntries(loopKeys), admin });

const validGatewayConfig = validator<ValidGatewayConfig>('createGateway', gatewaySchema, gatewayOptions);

interface BodyError {
  status?: number;
  expose?: boolean;
  type?: string;
  /** the body as received, on a parse failure */
  body?: string;
  message: string;
}

/** Why express.json() refused a body: JSON but no object or list (what its strict mode takes), no JSON, too large. */
function bodyRefusal({ type, body, message }: BodyError): string {
  if (type !== 'entity.parse.failed') return message;
  const json = parsedOrUndefined(body ?? '');
  if (json === undefined) return `the request body is not valid JSON: ${message}`;
  return `the request body is JSON but not an object (${jsonKind(json)}); send a JSON object`;
}

/** A body express.json() refused (not JSON, too large): its wire's error (else OpenAI's), not Express's HTML page. */
const refusedBody: ErrorRequestHandler = function refusedBody(error: BodyError, req, res, next) {
  if (res.headersSent || !error.expose || !error.status || error.status >= 500) return next(error);
  res.status(error.status).json(errorBodyFor(req.path, error.status, bodyRefusal(error)));
};

function upstreamFailure(error: Error, _req: IncomingMessage, res: ServerResponse | Socket): void {
  if (!('writeHead' in res) || res.headersSent) return void res.end();
  // JSON.parse takes nesting that JSON.stringify cannot give back: such a body cannot be forwarded, by its sender's
  // doing.
  const [status, body] =
    error instanceof RangeError
      ? [
          400,
          openAiError(
            `the request body cannot be forwarded: ${error.message} (nested too deeply?)`,
            'invalid_request_error',
          ),
        ]
      : [502, openAiError(`upstream unreachable: ${error.message}`, 'upstream_error')];
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Throws the coded error createGateway would for `config`'s own keys (the loop's options are agentLoop's to check). */
export function validateGatewayConfig(config: unknown): void {
  validGatewayConfig(config);
}

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

/** The proxy to the upstream: the normal handler, with the upstream's key in place of the client's. */
function forwardingTo(
  target: string,
  agent: http.Agent,
  health: UpstreamHealth,
  apiKey: string | undefined,
  keyChecked: boolean,
) {
  return createProxyMiddleware({
    target,
    changeOrigin: true,
    // Without an agent, http-proxy opens a new upstream connection per request: every loop turn would pay a connect.
    // Without a `timeout`, Node's agent ignores the upstream's `Keep-Alive: timeout=N` and keeps an idle connection
    // until the upstream closes it: a turn sent on it as it closes gets a 504, and a first turn then falls through.
    agent,
    on: {
      proxyReq(proxyReq, req, res) {
        // a key the gateway checked never travels upstream, whether or not there is an upstream key to send instead
        if (apiKey !== undefined || keyChecked) setUpstreamKey(proxyReq, req, apiKey);
        fixRequestBody(proxyReq, req);
        // http-proxy cancels only on 'aborted', which Node does not emit once the body was read: without this, a
        // client that went away (or a cancelled loop turn) would leave the upstream generating.
        res.on('close', () => res.writableFinished || proxyReq.destroy());
      },
      proxyRes: (proxyRes) => health.saw(proxyRes.statusCode ?? 502),
      error: upstreamFailure,
    },
  });
}
