import { localTrellis } from '../../lib/trellis/local';
import { codeModeOf } from '../../lib/code-mode/options';
import { optionFailure } from '../helpers/option-failure';

const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };

describe('codeMode, a binding option', () => {
  it.each([
    [
      { timeoutSec: 0 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].codeMode.timeoutSec' is 0; it must be a whole number from 1 to 120 (default 10), e.g. timeoutSec: 10.",
    ],
    [
      { memoryMb: 513 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].codeMode.memoryMb' is 513; it must be a whole number from 8 to 512 (default 64), e.g. memoryMb: 64.",
    ],
    [
      { maxCalls: 1.5 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].codeMode.maxCalls' is 1.5; it must be a whole number from 1 to 500 (default 50), e.g. maxCalls: 50.",
    ],
    [
      { timeout: 10 },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].codeMode.timeout'. Did you mean `timeoutSec`? Known options here: timeoutSec, memoryMb, maxCalls.",
    ],
    [
      'yes',
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'agentLoop: option \'bindings[0].codeMode\' is "yes"; it must be true, false (default) or { timeoutSec?: 1 to 120 (default 10), memoryMb?: 8 to 512 (default 64), maxCalls?: 1 to 500 (default 50) }, e.g. codeMode: { timeoutSec: 10 }.',
    ],
  ])(
    'refuses %j at start-up with the coded error naming the option, the value and the fix',
    (codeMode, code, message) => {
      const error = optionFailure({ trellis, bindings: [{ ...binding, codeMode }] });
      expect([error.code, error.message]).toEqual([code, message]);
    },
  );

  it('fills in the defaults: 10 s, 64 MiB, 50 calls; off when left out or false', () => {
    expect(codeModeOf(true)).toEqual({ timeoutSec: 10, memoryMb: 64, maxCalls: 50 });
    expect(codeModeOf({ timeoutSec: 30, memoryMb: 64, maxCalls: 5 })).toEqual({
      timeoutSec: 30,
      memoryMb: 64,
      maxCalls: 5,
    });
    expect(codeModeOf(false)).toBeUndefined();
    expect(codeModeOf(undefined)).toBeUndefined();
  });
});
