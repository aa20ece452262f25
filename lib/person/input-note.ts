import type { Loop } from '../loop/context';
import type { Question } from './input';

export type InputOutcome = 'asked' | 'answered' | 'declined' | 'cancelled' | 'refused';

/**
 * Every question's step, in the loop's log, metrics and span alike: the question's mode and its fields' names, never
 * what the person typed (that is content).
 */
export function noteInput(
  loop: Loop,
  tool: string,
  outcome: InputOutcome,
  detail: { question?: Question; reason?: string } = {},
): void {
  loop.telemetry?.input(tool, outcome);
  const { question, reason } = detail;
  const properties = question?.mode === 'form' ? question.requestedSchema.properties : undefined;
  loop.logger[outcome === 'refused' ? 'warn' : 'info'](`agent-loop input ${outcome}`, {
    loopId: loop.id,
    binding: loop.binding.name,
    tool,
    ...(question ? { mode: question.mode } : {}),
    ...(typeof properties === 'object' && properties !== null ? { fields: Object.keys(properties) } : {}),
    ...(reason === undefined ? {} : { reason }),
  });
}
