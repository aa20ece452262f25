import type { AgentLoopError } from '../../lib';
import { agentLoop } from '../../lib';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** The error agentLoop throws for these options (its logs quiet). */
export function optionFailure(options: unknown): AgentLoopError {
  try {
    agentLoop({ logger: quiet, ...(options as object) });
  } catch (error) {
    return error as AgentLoopError;
  }
  throw new Error('agentLoop accepted bad options');
}
