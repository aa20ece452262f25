export type StopReason = 'final' | 'max_turns' | 'deadline' | 'upstream_error' | 'tokens';

/** One wall-clock deadline over every turn of a loop; its signal cuts a running self-call or tool call short. */
export class Deadline {
  readonly expiresAt: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly seconds: number) {
    this.expiresAt = Date.now() + seconds * 1000;
    this.timer = setTimeout(() => this.controller.abort(new Error(`total budget of ${seconds}s ran out`)), seconds * 1000);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The short note appended to the last answer when the loop stops before a final one. */
export function budgetNote(stop: Exclude<StopReason, 'final'>, detail: { maxTurns: number; totalBudgetSec: number; reason?: string; turn: number; maxTokensPerLoop?: number; tokens?: number }): string {
  switch (stop) {
    case 'max_turns':
      return `[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = ${detail.maxTurns}).`;
    case 'deadline':
      return `[agent-loop] Stopped before a final answer: the total time budget ran out (totalBudgetSec = ${detail.totalBudgetSec}s).`;
    case 'upstream_error':
      return `[agent-loop] Stopped before a final answer: the model call of turn ${detail.turn} failed (${detail.reason}).`;
    case 'tokens':
      return `[agent-loop] Stopped before a final answer: the token budget ran out (maxTokensPerLoop = ${detail.maxTokensPerLoop}, ${detail.tokens} used).`;
  }
}
