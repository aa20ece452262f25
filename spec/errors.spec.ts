import { AgentLoopError } from '../lib/errors';

describe('AgentLoopError', () => {
  it('is an Error with a stable code to branch on and the message as given', () => {
    const error = new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'maxTurns' is 0; it must be 1 to 50.",
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe('ERR_AGENT_LOOP_INVALID_OPTION');
    expect(error.message).toBe("agentLoop: option 'maxTurns' is 0; it must be 1 to 50.");
  });

  it('names itself, so a stack trace and String(error) say which error it is', () => {
    const error = new AgentLoopError('ERR_AGENT_LOOP_NO_TRELLIS', 'no trellis');
    expect(error.name).toBe('AgentLoopError');
    expect(String(error)).toBe('AgentLoopError: no trellis');
    expect(error.stack).toMatch(/^AgentLoopError: no trellis\n/);
  });
});
