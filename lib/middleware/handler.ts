import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isInternalRequest, markerVerdict, removeMarker } from '../self-call/marker';
import type { ActiveBinding } from '../loop/context';
import { refusedForKeyBudget } from '../store/key-budget-refusal';
import { refusedForDeferredTools } from '../tool-search/deferred-refusal';
import { isAmbiguousPath } from '../self-call/routed-path';
import { startLoop } from '../loop/start';
import type { EarlierWork } from '../hand-back/continuation';
import { restoreEarlierWork } from '../hand-back/restored-work';
import { refusedRequest } from '../loop/refused-request';
import type { Logger } from '../types';
import type { Wire, WireRequest } from '../loop/wire';
import { wireFor } from '../wire/wires';
import { loggedPath } from '../shared/redact';
import { neverDrop, notStarted } from './fall-through';
import type { Parts } from './parts';

/** One request the loop may take, as the handler read it. */
interface Asked {
  req: Request;
  res: Response;
  next: NextFunction;
  wire: Wire;
  body: WireRequest;
  binding: ActiveBinding;
}

/** The handler: a request on a wire's path that is not one of our own turns may start a loop. */
export function handlerOf(parts: Parts): RequestHandler {
  const { servesApp, signIns, key, logger, bindings, answerIds } = parts;
  return function agentLoopMiddleware(req: Request, res: Response, next: NextFunction): void {
    servesApp(req);
    if (signIns.serve(req, res)) return;
    const wire = req.method === 'POST' ? wireFor(req.path) : undefined;
    const verdict = wire && markerVerdict(req, key);
    removeMarker(req);
    if (!wire) return next();
    if (verdict === 'internal') return next();
    if (verdict === 'forged') return passForged(logger, req, next);
    if (isAmbiguousPath(req.originalUrl)) {
      logger.warn(
        'agent-loop does not run on a path with dot segments or encoded dots or slashes; ' +
          'the request goes to the normal handler',
        { ip: req.ip },
      );
      return next();
    }
    const body: unknown = req.body;
    if (body === undefined) warnOnceNoBody(parts);
    if (!wire.accepts(body)) return next();
    const binding = bindings.resolve(req, body, wire.modelOf(body, req));
    if (!binding) return next();
    if (refusedRequest(req, res, wire, body)) return;
    const asked: Asked = { req, res, next, wire, body, binding };
    // a follow-up chained on an answer of another replica waits for the store to say which upstream reply it was
    const chained = answerIds.load(wire.chainedOn?.(body));
    if (chained) chained.then(() => serve(parts, asked)).catch(next);
    else serve(parts, asked);
  };
}

/**
 * A marker that does not verify is never trusted, and never starts a loop either: it may be one of our own turns
 * signed under another process's key (a cluster without a shared secret), and a loop there would self-call again.
 */
function passForged(logger: Logger, req: Request, next: NextFunction): void {
  // another agentLoop's turn in this app (its own secret) is no forgery: it is just not ours to loop
  if (isInternalRequest(req))
    logger.debug("agent-loop passed on another agentLoop's turn", { path: loggedPath(req.originalUrl) });
  else
    logger.warn(
      'agent-loop ignored an X-MCP-Internal marker that does not verify; ' +
        'the request goes to the normal handler without the loop',
      { ip: req.ip, path: loggedPath(req.originalUrl) },
    );
  next();
}

function warnOnceNoBody(parts: Parts): void {
  if (parts.warnedNoBody) return;
  parts.warnedNoBody = true;
  parts.logger.warn(
    'agent-loop sees no parsed body: mount express.json() before agentLoop(); requests pass on untouched until then',
  );
}

/** The earlier work restored, and the loop started unless shutdown or overload pass the request on. */
function serve(parts: Parts, asked: Asked): void {
  const { inFlight, maxConcurrentLoops, logger } = parts;
  const { req, res, next, wire, binding } = asked;
  const { continuations, answerIds } = parts;
  const { request, earlier } = restoreEarlierWork(req, wire, asked.body, binding, { continuations, answerIds }, logger);
  if (inFlight.closing)
    return notStarted(
      parts,
      asked,
      'shutdown',
      'agent-loop is shutting down; passing the request to the normal handler',
    );
  if (inFlight.size >= maxConcurrentLoops) {
    return notStarted(parts, asked, 'overloaded', 'agent-loop overloaded; passing the request to the normal handler', {
      inFlight: inFlight.size,
      maxConcurrentLoops,
    });
  }
  const run = loopOrPass(parts, asked, parts.bindings.bodyFor(binding, request), earlier).catch((error: Error) =>
    neverDrop(logger, res, next, error),
  );
  inFlight.track(run);
}

async function loopOrPass(parts: Parts, asked: Asked, body: WireRequest, earlier: EarlierWork): Promise<void> {
  const { req, res, wire, binding } = asked;
  if (refusedForDeferredTools(res, wire, body, binding.toolSearch)) return;
  const spend = await refusedForKeyBudget(parts.keyBudget, parts.settings.current.keyBudget, req, res, wire);
  if (spend === 'refused') return;
  const result = await startLoop(parts.services, req, res, wire, body, binding, earlier, spend);
  if (result.kind === 'fallthrough') asked.next();
}
