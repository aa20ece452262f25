import type { JudgeOption } from '../../lib/judge/options';
import { createJudgeRunner } from '../../lib/judge/runner';
import type { Judge, Verdict } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';

export const settings = { mode: 'enforce', timeoutSec: 10, onError: 'block' } as const;

export function runnerFor(evaluate: Judge['evaluate'], overrides: Partial<JudgeOption> = {}) {
  const { logger, lines } = memoryLogger();
  const runner = createJudgeRunner({ judge: { evaluate }, ...settings, ...overrides } as JudgeOption, logger);
  return { runner, lines };
}

export const returning = (verdict: unknown) => async () => verdict as Verdict;
export const never = () => new Promise<Verdict>(() => undefined);
