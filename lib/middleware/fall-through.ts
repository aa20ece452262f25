import type { NextFunction, Response } from 'express';
import type { ActiveBinding } from '../loop/context';
import type { Wire } from '../loop/wire';
import { setStop } from '../shared/stop';
import type { Telemetry } from '../telemetry/loop-telemetry';
import type { Logger } from '../types';

/** Where a request the loop does not answer goes on from: the normal handler, with the loop's binding and wire. */
interface PassedOn {
  res: Response;
  next: NextFunction;
  binding: ActiveBinding;
  wire: Wire;
}

/** A request the loop will not run (overload, shutdown) goes to the normal handler, saying why. */
export function notStarted(
  { telemetry, logger }: { telemetry: Telemetry | undefined; logger: Logger },
  { res, next, binding, wire }: PassedOn,
  stop: 'overloaded' | 'shutdown',
  message: string,
  more?: Record<string, unknown>,
): void {
  setStop(res, stop);
  const meta = { binding: binding.name, wire: wire.name };
  telemetry?.metrics?.loopNotStarted(meta, stop);
  logger.warn(message, more ? { ...meta, ...more } : meta);
  next();
}

/**
 * A loop that failed in a way nothing caught: the request still never drops. Before a byte went out it goes to the
 * normal handler; after, the response ends.
 */
export function neverDrop(logger: Logger, res: Response, next: NextFunction, error: Error): void {
  logger.error('agent-loop failed unexpectedly; passing the request on', { reason: error.message, stack: error.stack });
  if (!res.headersSent) next();
  else if (!res.writableEnded) res.end();
}
