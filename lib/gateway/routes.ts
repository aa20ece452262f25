import type { RequestHandler } from 'express';
import { openAiError } from '../shared/openai-error';
import { isAmbiguousPath } from '../self-call/routed-path';
import { routePattern, routeProblem } from '../shared/route-pattern';
import { WIRES } from '../wire/wires';

/**
 * What the ready gateway forwards by default, under `/v1` (and `/v1beta`): inference (every wire's routes), and the
 * model list its clients read.
 */
export const INFERENCE_ROUTES = [
  ...WIRES.flatMap((wire) => wire.routes.map((route) => `POST ${route.source.slice(1)}`)),
  'POST completions',
  'POST embeddings',
  'GET models',
  'GET models/*',
];

const METHOD_AND_PATH = /^(\*|GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (.*)$/;

/**
 * `METHOD path`: a method or `*`, then the path under `/v1` (or `/v1beta`, Gemini's), a route pattern without its
 * leading `/` (`lib/shared/route-pattern.ts`, the wires' grammar): `*` or `{name}` matching any one segment's part
 * (Gemini's `models/{model}:generateContent`, `models/*:generateContent`).
 */
export function isRoute(route: string): boolean {
  const [, , path] = METHOD_AND_PATH.exec(route) ?? [];
  return path !== undefined && routeProblem(`/${path}`) === undefined;
}

interface Route {
  method: string;
  path: RegExp;
}

function compiled(route: string): Route {
  const [, method, path] = METHOD_AND_PATH.exec(route)!;
  return { method, path: new RegExp(`^/v1(?:beta)?${routePattern(`/${path}`).expression}$`, 'i') };
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
        `the path ${req.originalUrl.split('?', 1)[0]} has dot segments or encoded dots, ` +
          'slashes or backslashes: this gateway forwards plain paths only',
        'invalid_path',
      );
    } else if (!allowed.some(({ method, path }) => (method === '*' || method === req.method) && path.test(req.path))) {
      refusal = refused(404, `this gateway does not forward ${req.method} ${req.path}`, 'unknown_route');
    }
    if (!refusal) return next();
    res.status(refusal.status).json(refusal.body);
  };
}
