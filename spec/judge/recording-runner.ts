import type { JudgeOption } from '../../lib/judge/options';
import { createJudgeRunner } from '../../lib/judge/runner';
import type { Judge, Logger, Verdict } from '../../lib/types';

export interface LogLine {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => lines.push({ level, message, meta });
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
}

export const settings = { mode: 'enforce', timeoutSec: 10, onError: 'block' } as const;

export function runnerFor(evaluate: Judge['evaluate'], overrides: Partial<JudgeOption> = {}) {
  const { logger, lines } = recordingLogger();
  const runner = createJudgeRunner({ judge: { evaluate }, ...settings, ...overrides } as JudgeOption, logger);
  return { runner, lines };
}

export const returning = (verdict: unknown) => async () => verdict as Verdict;
export const never = () => new Promise<Verdict>(() => undefined);
