import { AgentLoopError } from '../../lib';
import { configOf } from '../../lib/options/agent-loop';
import { optionFailure } from '../helpers/option-failure';

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
