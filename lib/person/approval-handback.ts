import type { ToolCall } from '../types';
import type { PendingApproval } from './approval';
import { maskedArguments } from '../judge/masked-arguments';
import { noteApproval } from './approval-note';
import type { ApprovalTokens } from './approval-token';
import type { Loop } from '../loop/context';

/**
 * Each call waiting for approval as a call to the client's approval tool, with what the person decides on
 * (`{ tool, arguments, reason }`) and, in its id, the call sealed: the client's answer to it decides the call.
 */
export function approvalCalls(loop: Loop, tokens: ApprovalTokens, pending: PendingApproval[]): ToolCall[] {
  return pending.map((waiting) => {
    noteApproval(loop, waiting.tool, 'asked', maskedArguments(waiting.reason, waiting.arguments));
    return {
      id: tokens.idFor(loop.req, loop.binding.name, waiting),
      type: 'function',
      function: {
        name: loop.approvalTool as string,
        arguments: JSON.stringify({ tool: waiting.tool, arguments: waiting.arguments, reason: waiting.reason }),
      },
    };
  });
}
