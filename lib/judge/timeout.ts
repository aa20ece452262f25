import { TimedOut, withinTimeout } from '../shared/signals';
import type { Judge, JudgeContext, JudgeInput } from '../types';

/**
 * Runs the judge under its own timeout and the loop's signal; a judge that ignores its signal times out all the same.
 */
export async function evaluateWithin(
  judge: Judge,
  input: JudgeInput,
  context: JudgeContext,
  timeoutSec: number,
): Promise<unknown> {
  try {
    return await withinTimeout(context.signal, timeoutSec, (signal) => judge.evaluate(input, { ...context, signal }));
  } catch (error) {
    if (error instanceof TimedOut || !context.signal.aborted) throw error;
    throw new Error('aborted');
  }
}
