import type { Loop } from '../loop/context';

export type ApprovalOutcome = 'asked' | 'granted' | 'denied' | 'expired' | 'refused';

/** Every approval's step, in the loop's log, metrics and span alike. */
export function noteApproval(loop: Loop, tool: string, outcome: ApprovalOutcome, reason?: string): void {
  loop.telemetry?.approval(tool, outcome);
  const level = outcome === 'asked' || outcome === 'granted' ? 'info' : 'warn';
  loop.logger[level](`agent-loop approval ${outcome}`, {
    loopId: loop.id,
    binding: loop.binding.name,
    tool,
    ...(reason === undefined ? {} : { reason }),
  });
}
