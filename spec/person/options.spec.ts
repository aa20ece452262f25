import { AgentLoopError } from '../../lib';
import { configOf } from '../../lib/options/agent-loop';
import { optionFailure } from '../helpers/option-failure';

describe('the approval option', () => {
  it('names the approving tool and how long an approval can be given, by default', () => {
    expect(configOf({}).approval).toEqual({ tool: 'approve_tool_call', ttlSec: 600 });
    expect(configOf({ approval: { ttlSec: 60 } }).approval).toEqual({ tool: 'approve_tool_call', ttlSec: 60 });
  });

  it.each([
    [
      { approval: { tool: 'approve tool' } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "fails to match the required pattern: /^[a-zA-Z0-9_-]{1,64}$/; it must be the name of the tool a client declares (in tools) to approve calls, letters, digits, _ and - (default 'approve_tool_call'), e.g. tool: 'approve_tool_call'.",
    ],
    [
      { approval: { ttlSec: 5 } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'approval.ttlSec' is 5; it must be a whole number from 10 to 86400 (default 600), e.g. ttlSec: 600.",
    ],
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = optionFailure(options);
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });
});

describe('the input option', () => {
  it('names the tool that asks the user, how long a question lasts and how many one call may ask, by default', () => {
    expect(configOf({}).input).toEqual({ tool: 'ask_user', ttlSec: 600, maxRounds: 3 });
    expect(configOf({ input: { ttlSec: 60 } }).input).toEqual({ tool: 'ask_user', ttlSec: 60, maxRounds: 3 });
  });

  it.each([
    [
      { input: { ttlSec: 0 } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "option 'input.ttlSec' is 0; it must be a whole number from 1 to 3600",
    ],
    [{ input: { ttlSec: 3601 } }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "option 'input.ttlSec' is 3601"],
    [{ input: { tool: 'ask user' } }, 'ERR_AGENT_LOOP_INVALID_OPTION', "e.g. tool: 'ask_user'"],
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = optionFailure(options);
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });
});
