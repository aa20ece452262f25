import type { RequireApproval } from '../types';
import type { ReplayLog } from '../code-mode/replay-log';

/** A call that did not run: a person must approve it first. */
export interface PendingApproval {
  /** the model's id of the call */
  callId: string;
  tool: string;
  /** what the person approves: the arguments as the judge left them */
  arguments: Record<string, unknown>;
  reason: string;
  /** a nested call of code mode's waits: its program's log, to resume it with the answer */
  program?: ReplayLog;
}

/** Why the binding's `requireApproval` asks a person about `tool`; undefined when it does not. */
export function requiredApproval(rule: RequireApproval, binding: string, tool: string): string | undefined {
  if (rule === 'never') return undefined;
  if (rule !== 'always' && rule.never.toolNames.includes(tool)) return undefined;
  return `binding '${binding}' requires approval for '${tool}'`;
}

/** The arguments a person is asked to approve travel sealed in an id: longer ones cannot be handed to them. */
export const MAX_APPROVAL_ARGUMENTS_BYTES = 8 * 1024;
