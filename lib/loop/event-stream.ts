import type { Response } from 'express';
import { onAbort } from '../signals';

/** Starts a server-sent event stream: its headers go out at once, so proxies pass each event on as it comes. */
export function openEventStream(res: Response): void {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
}

/** Resolves once the client drained its full socket, went away, or the loop ended (`signal`). */
export function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let unwatch = (): void => undefined;
    const done = () => {
      res.off('drain', done).off('close', done);
      unwatch();
      resolve();
    };
    res.once('drain', done).once('close', done);
    unwatch = onAbort(signal, done);
  });
}
