/** The one error class of the package: a stable `code` to branch on, a message that names the fix. */
export class AgentLoopError extends Error {
  override readonly name = 'AgentLoopError';

  constructor(
    readonly code: `ERR_AGENT_LOOP_${string}`,
    message: string,
  ) {
    super(message);
  }
}
