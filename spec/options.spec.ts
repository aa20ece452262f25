import { agentLoop, AgentLoopError } from '../lib';
import { localTrellis } from '../lib/trellis/local';

const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

function failure(options: unknown): AgentLoopError {
  try {
    agentLoop({ logger: quiet, ...(options as object) });
  } catch (error) {
    return error as AgentLoopError;
  }
  throw new Error('agentLoop accepted bad options');
}

describe('agentLoop options', () => {
  it('accepts good options and fills the defaults', () => {
    const loop = agentLoop({ trellis, bindings: [binding], logger: quiet });
    expect(loop.settings.get()).toEqual({ totalBudgetSec: 120, defaultMaxTurns: 6, maxToolCallsPerTurn: 8 });
  });

  it.each([
    [{ bindings: [{ ...binding, maxTurns: 51 }] }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'bindings[0].maxTurns' is 51; it must be a whole number from 1 to 50 (default 6), e.g. maxTurns: 6."],
    [{ bindings: [{ ...binding, toolTimeoutSec: 0 }] }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'bindings[0].toolTimeoutSec' is 0; it must be a whole number from 1 to 300 (default 30), e.g. toolTimeoutSec: 30."],
    [{ totalBudgetSec: 2.5 }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'totalBudgetSec' is 2.5; it must be a whole number from 1 to 3600 (default 120), e.g. totalBudgetSec: 120."],
    [{ maxToolCallsPerTurn: '8' }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'maxToolCallsPerTurn' is \"8\"; it must be a whole number from 1 to 64 (default 8), e.g. maxToolCallsPerTurn: 8."],
    [{ maxTurn: 3 }, 'ERR_AGENT_LOOP_UNKNOWN_OPTION', "agentLoop: unknown option 'maxTurn'. Did you mean `defaultMaxTurns`?"],
    [{ bindings: [{ ...binding, maxturns: 3 }] }, 'ERR_AGENT_LOOP_UNKNOWN_OPTION', "agentLoop: unknown option 'bindings[0].maxturns'. Did you mean `maxTurns`?"],
    [{ internalSecret: 'short' }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'internalSecret' is \"short\"; it must be a string of at least 32 characters"],
    [{ trellis: { mcp: { url: 'ftp://x' } } }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'trellis' is {\"mcp\":{\"url\":\"ftp://x\"}}; it must be a Trellis"],
    [{ bindings: [{ ...binding, match: { modle: 'x' } }] }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'bindings[0].match' is {\"modle\":\"x\"}; it must be { model: 'gpt-*' }"],
    [{ bindings: [{ ...binding, hierarchy: [{ tool: 'a', children: ['a'] }] }] }, 'ERR_AGENT_LOOP_INVALID_OPTION', "option 'bindings[0].hierarchy' is [{\"tool\":\"a\",\"children\":[\"a\"]}]; it must be a tool tree: 'a' appears twice"],
    [{ bindings: [{ ...binding, hierarchy: [{ name: 'a' }] }] }, 'ERR_AGENT_LOOP_INVALID_OPTION', 'it must be a tool tree: {"name":"a"} is not a tool node'],
    [{ bindings: [binding, binding] }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'bindings[1]'"],
    [{ selfUrl: 'localhost' }, 'ERR_AGENT_LOOP_INVALID_OPTION', "it must be a base URL like 'http://127.0.0.1:3000'"],
    [{ logger: () => undefined }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'logger' is a function; it must be a winston-compatible logger"],
    [{ keepAliveSec: 301 }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'keepAliveSec' is 301; it must be a whole number from 1 to 300 (default 10), e.g. keepAliveSec: 10."],
    [{ onClientDisconnect: 'cancel' }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'onClientDisconnect' is \"cancel\"; it must be 'abort' (cancel the loop's calls when the client goes away) or 'finish'"],
    [{ maxToolResultBytes: 1023 }, 'ERR_AGENT_LOOP_OUT_OF_RANGE', "agentLoop: option 'maxToolResultBytes' is 1023; it must be a whole number from 1024 to 10485760 (default 65536), e.g. maxToolResultBytes: 65536."],
    [{ trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', listTtlSec: -1 } } }, 'ERR_AGENT_LOOP_INVALID_OPTION', 'plus listTtlSec?: 0 to 86400 (default 60) beside url or command.'],
    [{ trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', forwardHeaders: ['bad header'] } } }, 'ERR_AGENT_LOOP_INVALID_OPTION', "forwardHeaders?: ['authorization']"],
    [{ trellis: { mcp: { command: 'node', forwardHeaders: ['authorization'] } } }, 'ERR_AGENT_LOOP_INVALID_OPTION', "option 'trellis' is {\"mcp\":{\"command\":\"node\",\"forwardHeaders\":[\"authorization\"]}}; it must be a Trellis"],
    [{ passImages: 'yes' }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'passImages' is \"yes\"; it must be true (tools' images go to the next turn as image parts, for vision models) or false"],
    [{ bindings: [{ ...binding, resetTimeoutOnProgress: 1 }] }, 'ERR_AGENT_LOOP_INVALID_OPTION', "agentLoop: option 'bindings[0].resetTimeoutOnProgress' is 1; it must be true (a progress notification starts the tool timeout afresh"],
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = failure({ trellis, bindings: [binding], ...options });
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });

  it("accepts hierarchy 'from-trellis' and an MCP trellis with its listing TTL", async () => {
    const loop = agentLoop({ trellis: { mcp: { url: 'http://127.0.0.1:9/mcp', listTtlSec: 0 } }, bindings: [{ ...binding, hierarchy: 'from-trellis' }], logger: quiet });
    await loop.close();
  });

  it('refuses a binding with tools but no trellis, naming the fix', () => {
    const error = failure({ bindings: [binding] });
    expect(error.code).toBe('ERR_AGENT_LOOP_NO_TRELLIS');
    expect(error.message).toContain("option 'bindings[0].trellis' is missing");
  });

  it('validates run-time settings like the options, keeping the old ones on a bad update', () => {
    const loop = agentLoop({ trellis, bindings: [binding], logger: quiet });
    expect(() => loop.settings.update({ totalBudgetSec: 0 })).toThrow(expect.objectContaining({ code: 'ERR_AGENT_LOOP_OUT_OF_RANGE' }));
    expect(() => loop.settings.update({ maxTurns: 3 } as never)).toThrow(expect.objectContaining({ code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION' }));
    expect(loop.settings.update({ totalBudgetSec: 30 })).toEqual({ totalBudgetSec: 30, defaultMaxTurns: 6, maxToolCallsPerTurn: 8 });
    expect(loop.settings.get().totalBudgetSec).toBe(30);
  });
});
