import type { Judge, JudgeContext, JudgeInput } from '../types';

function rejectOnAbort(signal: AbortSignal): { aborted: Promise<never>; stop(): void } {
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { aborted, stop: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Runs the judge under its own timeout and the loop's signal. The race makes a judge that ignores its signal
 * time out all the same.
 */
export async function evaluateWithin(
  judge: Judge,
  input: JudgeInput,
  context: JudgeContext,
  timeoutSec: number,
): Promise<unknown> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutSec * 1000);
  const signal = AbortSignal.any([context.signal, timeout.signal]);
  const watch = rejectOnAbort(signal);
  try {
    signal.throwIfAborted();
    return await Promise.race([judge.evaluate(input, { ...context, signal }), watch.aborted]);
  } catch (error) {
    if (timeout.signal.aborted) throw new Error(`timed out after ${timeoutSec}s`);
    if (context.signal.aborted) throw new Error('aborted');
    throw error;
  } finally {
    clearTimeout(timer);
    watch.stop();
  }
}
