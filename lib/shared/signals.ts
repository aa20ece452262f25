const ignore = (): void => undefined;

/** Runs `action` once `signal` aborts (at once if it has); the function returned stops watching. */
export function onAbort(signal: AbortSignal | undefined, action: () => void): () => void {
  if (!signal) return ignore;
  if (signal.aborted) {
    action();
    return ignore;
  }
  signal.addEventListener('abort', action, { once: true });
  return () => signal.removeEventListener('abort', action);
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts, whichever comes first. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(signal.reason));
    work.then(resolve, reject).finally(stop);
  });
}

/** Whether `work` settled (either way) within `ms`; it is not stopped when it did not. The timer goes with it. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ranOut = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      ranOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An AbortController that also aborts, with the same reason, when `parent` does; `unlink()` when done with it.
 * AbortSignal.any does the same at several times the cost, and every tool call needs one.
 */
export function linkedController(parent: AbortSignal): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  return { controller, unlink: onAbort(parent, () => controller.abort(parent.reason)) };
}

export class TimedOut extends Error {
  override readonly name = 'TimedOut';
}

/**
 * Runs `work` under its own timeout and `parent`'s signal. The race makes work that ignores its signal end all
 * the same: a timeout rejects with `TimedOut`, a parent abort with the parent's reason. `work` may call `extend()`
 * to start the timeout afresh (a tool that reports progress); only `parent` then bounds it.
 */
export async function withinTimeout<T>(
  parent: AbortSignal,
  seconds: number,
  work: (signal: AbortSignal, extend: () => void) => Promise<T>,
): Promise<T> {
  parent.throwIfAborted();
  const controller = new AbortController();
  // Whoever aborts the controller ends the race too: no listener on the controller's own signal (every tool call has
  // one).
  let stop: (reason: unknown) => void = ignore;
  const abort = (reason: unknown) => {
    controller.abort(reason);
    stop(reason);
  };
  const unlink = onAbort(parent, () => abort(parent.reason));
  const timer = setTimeout(() => abort(new TimedOut(`timed out after ${seconds}s`)), seconds * 1000);
  let settled = false;
  // refresh() would re-arm a timer already cleared
  const extend = () => void (settled || controller.signal.aborted || timer.refresh());
  try {
    return await new Promise<T>((resolve, reject) => {
      stop = reject;
      work(controller.signal, extend).then(resolve, reject);
    });
  } finally {
    settled = true;
    clearTimeout(timer);
    unlink();
  }
}
