import { abortable } from './trellis/abortable';

/**
 * An AbortController that also aborts, with the same reason, when `parent` does; `unlink()` when done with it.
 * AbortSignal.any does the same at several times the cost, and every tool call needs one.
 */
export function linkedController(parent: AbortSignal): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => parent.removeEventListener('abort', follow) };
}

export class TimedOut extends Error {
  override readonly name = 'TimedOut';
}

/**
 * Runs `work` under its own timeout and `parent`'s signal. The race makes work that ignores its signal end all
 * the same: a timeout rejects with `TimedOut`, a parent abort with the parent's reason. `work` may call `extend()`
 * to start the timeout afresh (a tool that reports progress); only `parent` then bounds it.
 */
export async function withinTimeout<T>(parent: AbortSignal, seconds: number, work: (signal: AbortSignal, extend: () => void) => Promise<T>): Promise<T> {
  const { controller, unlink } = linkedController(parent);
  const timer = setTimeout(() => controller.abort(new TimedOut(`timed out after ${seconds}s`)), seconds * 1000);
  let settled = false;
  // refresh() would re-arm a timer already cleared
  const extend = () => void (settled || controller.signal.aborted || timer.refresh());
  try {
    controller.signal.throwIfAborted();
    return await abortable(work(controller.signal, extend), controller.signal);
  } finally {
    settled = true;
    clearTimeout(timer);
    unlink();
  }
}
