import type { RequestHandler } from 'express';
import { openAiError } from '../shared/openai-error';
import { isAmbiguousPath } from '../self-call/routed-path';
import { WIRES } from '../wire/wires';

/**
 * What the ready gateway forwards by default, under `/v1` (and `/v1beta`): inference (every wire's), and the model list
 * its clients read.
 */
export const INFERENCE_ROUTES = [
  ...WIRES.filter((wire) => !wire.route).map((wire) => `POST ${wire.path.slice(1)}`),
  'POST models/*:generateContent',
  'POST models/*:streamGenerateContent',
  'POST completions',
  'POST embeddings',
  'GET models',
  'GET models/*',
];

/**
 * `METHOD path`: a method or `*`, then the path under `/v1` (or `/v1beta`, Gemini's), a segment `*` matching any one
 * segment, `*:method` any one ending so (Gemini's `models/*:generateContent`).
 */
export const ROUTE =
  /^(\*|GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (?!(.*\/)?\.\.?(\/|$))(\*(:[\w\-.~]+)?|[\w\-.~]+)(\/(\*(:[\w\-.~]+)?|[\w\-.~]+))*$/;

interface Route {
  method: string;
  path: RegExp;
}

function compiled(route: string): Route {
  const [method, path] = route.split(' ');
  const segments = path
    .split('/')
    .map((segment) => (segment.startsWith('*') ? `[^/]+${segment.slice(1)}` : segment.replace(/\./g, '\\.')));
  return { method, path: new RegExp(`^/v1(?:beta)?/${segments.join('/')}$`, 'i') };
}

function refused(status: number, message: string, code: string): { status: number; body: unknown } {
  return { status, body: openAiError(message, 'invalid_request_error', { code }) };
}

/**
 * The ready gateway's front gate for everything not answered before it: a path with dot segments or encoded dots,
 * slashes or backslashes gets 400 (the proxy would forward it raw, the upstream might resolve it elsewhere), and
 * only `routes` reach the upstream; anything else gets 404, never the operator's key.
 */
export function routeGuard(routes: string[]): RequestHandler {
  const allowed = routes.map(compiled);
  return function gatewayRoutes(req, res, next) {
    let refusal: { status: number; body: unknown } | undefined;
    if (isAmbiguousPath(req.originalUrl)) {
      refusal = refused(
        400,
        `the path ${req.originalUrl.split('?', 1)[0]} has dot segments or encoded dots, slashes or backslashes: this gateway forwards plain paths only`,
        'invalid_path',
      );
    } else if (!allowed.some(({ method, path }) => (method === '*' || method === req.method) && path.test(req.path))) {
      refusal = refused(404, `this gateway does not forward ${req.method} ${req.path}`, 'unknown_route');
    }
    if (!refusal) return next();
    res.status(refusal.status).json(refusal.body);
  };
}
