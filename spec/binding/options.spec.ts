import { agentLoop, AgentLoopError } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { optionFailure } from '../helpers/option-failure';

const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe('the options of a binding', () => {
  it.each([
    [
      { bindings: [{ ...binding, maxTurns: 51 }] },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].maxTurns' is 51; it must be a whole number from 1 to 50 (default 6), e.g. maxTurns: 6.",
    ],
    [
      { bindings: [{ ...binding, toolTimeoutSec: 0 }] },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].toolTimeoutSec' is 0; it must be a whole number from 1 to 300 (default 30), e.g. toolTimeoutSec: 30.",
    ],
    [
      { bindings: [{ ...binding, toolTimeouts: { a: 0 } }] },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].toolTimeouts.a' is 0; must be greater than or equal to 1; it must map tool names to whole seconds from 1 to 3600, at most totalBudgetSec, e.g. toolTimeouts: { build_project: 1800 }.",
    ],
    [
      { totalBudgetSec: 600, bindings: [{ ...binding, toolTimeouts: { a: 1800 } }] },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'bindings[0].toolTimeouts.a' is 1800, above totalBudgetSec (600), which would cut the call first; give it at most 600, or raise totalBudgetSec to 1800.",
    ],
    [
      { bindings: [{ ...binding, maxturns: 3 }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].maxturns'. Did you mean `maxTurns`?",
    ],
    [
      { bindings: [{ name: 'notes', match: { model: '*' }, hierachy: ['clock_now'] }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].hierachy'. Did you mean `hierarchy`?",
    ],
    [
      { bindings: [{ ...binding, match: { modle: 'gpt-*' } }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].match.modle'. Did you mean `model`?",
    ],
    [
      { bindings: [{ ...binding, trellis: { mcp: { url: 'localhost:4000' } } }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'bindings[0].trellis.mcp.url' is \"localhost:4000\"; it must be the server's http(s) URL",
    ],
    [
      { bindings: [{ ...binding, hierarchy: [{ tool: 'a', children: ['a'] }] }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'option \'bindings[0].hierarchy\' is [{"tool":"a","children":["a"]}]; it must be a tool tree: \'a\' appears twice',
    ],
    [
      { bindings: [{ ...binding, hierarchy: [{ name: 'a' }] }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].hierarchy[0].name'. Known options here: tool, children.",
    ],
    [
      { bindings: [{ ...binding, hierarchy: [{ tool: 'notes_open', childern: ['notes_read'] }] }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].hierarchy[0].childern'. Did you mean `children`? Known options here: tool, children.",
    ],
    [
      { bindings: [{ ...binding, hierarchy: { tool: 'a', children: ['b', { tool: 'c', Tool: 'd' }] } }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].hierarchy.children[1].Tool'. Did you mean `tool`?",
    ],
    [
      { bindings: [{ ...binding, hierarchy: [{ children: ['a'] }] }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'it must be a tool tree: {"children":["a"]} is not a tool node',
    ],
    [
      { bindings: [binding, binding] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `agentLoop: option 'bindings[1].name' is "${binding.name}"; bindings[0] has that name too; it must be a unique name for the binding, e.g. 'repo-agent'.`,
    ],
    [
      { bindings: [{ ...binding, requireApproval: 'sometimes' }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'bindings[0].requireApproval' is \"sometimes\"; it must be 'always', 'never' (default) or { never: { toolNames: [...] } }",
    ],
    [
      { bindings: [{ ...binding, requireApproval: { never: { tool_names: ['a'] } } }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].requireApproval.never.tool_names'. Did you mean `toolNames`?",
    ],
    [
      { bindings: [{ ...binding, resetTimeoutOnProgress: 1 }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'bindings[0].resetTimeoutOnProgress' is 1; it must be true (a progress notification starts the tool timeout afresh",
    ],
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = optionFailure({ trellis, ...options });
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });

  it.each([
    [
      { bindings: [{ ...binding, match: { model: 5 } }] },
      "option 'bindings[0].match.model' is 5; it must be a model name glob or a list of them, e.g. model: 'gpt-*' or model: ['gpt-4o', 'llama3*'].",
    ],
    [
      { bindings: [{ ...binding, match: { header: { 'x-agent': 5 } } }] },
      "option 'bindings[0].match.header.x-agent' is 5; must be a string; it must map header names to value globs, e.g. header: { 'x-agent': 'repo*' }.",
    ],
    [
      { bindings: [{ name: 'b', match: { model: '*' } }] },
      "option 'bindings[0].hierarchy' is undefined; it must be a tool tree, e.g. hierarchy: 'clock_now', hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }], or hierarchy: 'from-trellis'.",
    ],
    [
      { bindings: {} },
      "option 'bindings' is {}; it must be a list of bindings, e.g. [{ name: 'repo-agent', match: { model: 'gpt-*' }, hierarchy: [{ tool: 'repo_open', children: ['repo_read'] }] }].",
    ],
    [
      { bindings: [{ ...binding, hierarchy: 'from_trellis' }] },
      `option 'bindings[0].hierarchy' is "from_trellis"; did you mean 'from-trellis'? That takes the tree from Trellis; a single tool named "from_trellis" is written ["from_trellis"].`,
    ],
    [
      { bindings: [{ ...binding, hierarchy: 'From-Trelis' }] },
      `option 'bindings[0].hierarchy' is "From-Trelis"; did you mean 'from-trellis'?`,
    ],
  ])('names the expected shape and an example for %j', (options, message) => {
    const error = optionFailure({ trellis, ...options });
    expect(error.code).toMatch(/^ERR_AGENT_LOOP_(INVALID_OPTION|OUT_OF_RANGE)$/);
    expect(error.message).toContain(message);
    expect(error.message).not.toMatch(/is required|must be one of \[/);
  });

  it("accepts hierarchy 'from-trellis' and an MCP trellis with its listing TTL", async () => {
    const loop = agentLoop({
      trellis: { mcp: { url: 'http://127.0.0.1:9/mcp', listTtlSec: 0 } },
      bindings: [{ ...binding, hierarchy: 'from-trellis' }],
      logger: quiet,
    });
    await loop.close();
  });
});
