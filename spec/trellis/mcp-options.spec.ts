import type { AgentLoopError } from '../../lib';
import { agentLoop, mcpTrellis } from '../../lib';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const url = 'http://127.0.0.1:9/mcp';

function failure(make: () => unknown): AgentLoopError {
  try {
    make();
  } catch (error) {
    return error as AgentLoopError;
  }
  throw new Error('accepted bad options');
}

/** The same MCP options refused by mcpTrellis and by agentLoop's `trellis.mcp`: the same code, value and fix. */
describe('mcpTrellis and agentLoop agree on the MCP options', () => {
  it.each([
    [
      { url, listTtlSec: 0.3 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      'listTtlSec',
      'is 0.3; it must be a whole number from 0 to 86400 (default 60), e.g. listTtlSec: 60.',
    ],
    [
      { url, listTtlSec: 86401 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      'listTtlSec',
      'is 86401; it must be a whole number from 0 to 86400 (default 60), e.g. listTtlSec: 60.',
    ],
    [
      { url: '127.0.0.1:4000/mcp' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'url',
      `is "127.0.0.1:4000/mcp"; it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'.`,
    ],
    [
      { url, forwardHeaders: ['bad header'] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'forwardHeaders[0]',
      `is "bad header"; with value "bad header" fails to match the required pattern: /^[!#$%&'*+.^_\`|~0-9A-Za-z-]+$/; it must be a list of the client request's header names, e.g. forwardHeaders: ['authorization'].`,
    ],
    [
      { command: 5 },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'command',
      "is 5; it must be the command that starts the server, e.g. command: 'node', args: ['server.js'].",
    ],
  ])('refuses %j in both, with the same message', (mcp, code, option, problem) => {
    const alone = failure(() => mcpTrellis(mcp as never));
    const inLoop = failure(() => agentLoop({ trellis: { mcp } as never, logger: quiet }));
    expect({ code: alone.code, message: alone.message }).toEqual({
      code,
      message: `mcpTrellis: option '${option}' ${problem}`,
    });
    expect({ code: inLoop.code, message: inLoop.message }).toEqual({
      code,
      message: `agentLoop: option 'trellis.mcp.${option}' ${problem}`,
    });
  });

  it('names a misspelt option in both, with a guess', () => {
    expect(() => mcpTrellis({ url, listTTLSec: 5 } as never)).toThrow(
      "mcpTrellis: unknown option 'listTTLSec'. Did you mean `listTtlSec`?",
    );
    expect(() => agentLoop({ trellis: { mcp: { url, listTTLSec: 5 } } as never, logger: quiet })).toThrow(
      "agentLoop: unknown option 'trellis.mcp.listTTLSec'. Did you mean `listTtlSec`?",
    );
  });

  it('refuses neither url nor command, naming both shapes', () => {
    expect(() => mcpTrellis({} as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_INVALID_OPTION',
        message:
          "mcpTrellis: option '(options)' is {}; must have a `url` (e.g. url: 'http://127.0.0.1:4000/mcp') or a `command` (e.g. command: 'node', args: ['server.js']).",
      }),
    );
  });

  it('takes what agentLoop takes: a whole listTtlSec, 0 included', async () => {
    const trellis = mcpTrellis({ url, listTtlSec: 0, forwardHeaders: ['authorization'], logger: quiet, name: 'notes' });
    await trellis.close?.();
  });
});
