import type { AgentLoopError } from '../../lib';
import { agentLoop } from '../../lib';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

function failure(options: object): AgentLoopError {
  try {
    agentLoop({ logger: quiet, ...options });
  } catch (error) {
    return error as AgentLoopError;
  }
  throw new Error('agentLoop accepted bad options');
}

describe('the metrics and telemetry options', () => {
  it.each([
    [
      { metrics: true },
      "agentLoop: option 'metrics' is true; it must be false or { registry?: a prom-client Registry, prefix?: 'agent_loop_' }, e.g. metrics: { prefix: 'agent_loop_' }.",
    ],
    [
      { metrics: { registry: {} } },
      "agentLoop: option 'metrics.registry' is {}; it must be a prom-client Registry, e.g. registry: new Registry() (import { Registry } from 'prom-client').",
    ],
    [
      { metrics: { prefix: '1x' } },
      'agentLoop: option \'metrics.prefix\' is "1x"; with value "1x" fails to match the Prometheus metric name pattern; it must be a Prometheus metric name prefix (letters, digits, _ and :), e.g. prefix: \'agent_loop_\'.',
    ],
    [
      { telemetry: { tracing: 'on' } },
      'agentLoop: option \'telemetry.tracing\' is "on"; must be a boolean; it must be { tracing?: boolean, captureContent?: boolean }, e.g. telemetry: { captureContent: false }.',
    ],
  ])('refuses %j, naming the value and the fix', (options, message) => {
    const error = failure(options);
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_AGENT_LOOP_INVALID_OPTION', message });
  });

  it('names a misspelt key with a guess', () => {
    expect(failure({ telemetry: { captureContents: true } }).message).toBe(
      "agentLoop: unknown option 'telemetry.captureContents'. Did you mean `captureContent`? Known options here: tracing, captureContent.",
    );
  });
});
