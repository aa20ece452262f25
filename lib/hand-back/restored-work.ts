import type { Request } from 'express';
import type { ActiveBinding } from '../loop/context';
import { NOTHING_EARLIER, type EarlierWork } from './continuation';
import type { FollowUp, Wire, WireRequest } from '../loop/wire';
import type { Logger } from '../types';

/**
 * A follow-up to a hand-back gets the loop's earlier work back, for the loop and for the normal handler alike;
 * only once a binding took the request, since a token opens only for the binding that wrote it.
 */
export function restoreEarlierWork(
  req: Request,
  wire: Wire,
  body: WireRequest,
  binding: ActiveBinding,
  keys: Pick<FollowUp, 'continuations' | 'answerIds'>,
  logger: Logger,
): { request: WireRequest; earlier: EarlierWork } {
  const restored = wire.restore(body, { ...keys, req, binding: binding.name });
  if (!restored) return { request: body, earlier: NOTHING_EARLIER };
  if (restored.forged > 0)
    logger.warn('agent-loop ignored a continuation that does not verify', {
      ip: req.ip,
      binding: binding.name,
      wire: wire.name,
      forged: restored.forged,
    });
  if (restored.ignored > 0)
    logger.warn('agent-loop ignored continuations past the bound of one per hand-back', {
      ip: req.ip,
      binding: binding.name,
      wire: wire.name,
      ignored: restored.ignored,
    });
  req.body = restored.body;
  return { request: restored.body, earlier: { succeeded: restored.succeeded, loaded: restored.loaded } };
}
