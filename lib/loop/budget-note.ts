import type { StopReason } from '../shared/stop';

/** The stops a budget (or a failed turn) makes: the answer ends with a note saying which. */
export type BudgetStop = Exclude<StopReason, 'final' | 'authorization' | 'input'>;

/** The short note appended to the last answer when the loop stops before a final one. */
export function budgetNote(
  stop: BudgetStop,
  detail: {
    maxTurns: number;
    totalBudgetSec: number;
    reason?: string;
    turn: number;
    maxTokensPerLoop?: number;
    tokens?: number;
    keyBudget?: { tokens: number; windowSec: number };
  },
): string {
  switch (stop) {
    case 'max_turns':
      return `[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = ${detail.maxTurns}).`;
    case 'deadline':
      return (
        '[agent-loop] Stopped before a final answer: ' +
        `the total time budget ran out (totalBudgetSec = ${detail.totalBudgetSec}s).`
      );
    case 'upstream_error':
      return (
        '[agent-loop] Stopped before a final answer: ' +
        `the model call of turn ${detail.turn} failed (${detail.reason}).`
      );
    case 'tokens':
      return (
        '[agent-loop] Stopped before a final answer: ' +
        `the token budget ran out (maxTokensPerLoop = ${detail.maxTokensPerLoop}, ${detail.tokens} used).`
      );
    case 'key-budget':
      return (
        '[agent-loop] Stopped before a final answer: ' +
        `this key's token budget ran out (keyBudget = ` +
        `${detail.keyBudget?.tokens} tokens per ${detail.keyBudget?.windowSec}s).`
      );
    case 'shutdown':
      return '[agent-loop] Stopped before a final answer: the gateway is shutting down.';
  }
}
