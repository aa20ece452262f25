import type { ServerResponse } from 'node:http';

/**
 * The stop: why the loop answered as it did, or why it did not run, in the `x-agent-loop-stop` header of the answer
 * (and a loop's log line, its metrics and its span).
 * - `final`: the model's final answer, or a call handed to the client (its own tool, the approval tool);
 * - `max_turns`, `deadline`, `tokens`, `key-budget`: a budget ran out (the turns, the total time, the loop's tokens,
 *   the key's tokens across the fleet); `upstream_error`: a turn's model call failed after the answer began;
 *   `shutdown`: the gateway is shutting down;
 * - `authorization`: the user must first consent at an MCP server's authorization server (the answer holds the link);
 *   `input`: a tool asked the person something (the answer holds calls to the client's input tool);
 * - no loop ran: `overloaded` (`maxConcurrentLoops` loops already run) and `shutdown` go to the normal handler;
 *   `key-budget` (the key spent its `keyBudget`) and `deferred-tools` (more deferred tools than tool search indexes)
 *   are refused in the wire's error shape.
 */
export type Stop =
  | 'final'
  | 'max_turns'
  | 'deadline'
  | 'upstream_error'
  | 'tokens'
  | 'key-budget'
  | 'shutdown'
  | 'authorization'
  | 'input'
  | 'overloaded'
  | 'deferred-tools';

/** The stops of a loop that ran: its answer's. */
export type StopReason = Exclude<Stop, 'overloaded' | 'deferred-tools'>;

/** Says the stop to the client, in the `x-agent-loop-stop` header of the answer. */
export function setStop(res: Pick<ServerResponse, 'setHeader'>, stop: Stop): void {
  res.setHeader('x-agent-loop-stop', stop);
}
