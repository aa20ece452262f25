import { mcpTrellis } from '../lib/trellis/mcp';
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
    expect(loop.settings.get()).toEqual({
      totalBudgetSec: 120,
      defaultMaxTurns: 6,
      maxToolCallsPerTurn: 8,
      bindings: { b: { maxTurns: 6, toolTimeoutSec: 30 } },
    });
  });

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
      { totalBudgetSec: 2.5 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'totalBudgetSec' is 2.5; it must be a whole number from 1 to 3600 (default 120), e.g. totalBudgetSec: 120.",
    ],
    [
      { maxToolCallsPerTurn: '8' },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      'agentLoop: option \'maxToolCallsPerTurn\' is "8"; it must be a whole number from 1 to 64 (default 8), e.g. maxToolCallsPerTurn: 8.',
    ],
    [
      { maxTurn: 3 },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'maxTurn'. Did you mean `defaultMaxTurns`?",
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
      { totalBudgetSec: 0, maxTurn: 3 },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'maxTurn'. Did you mean `defaultMaxTurns`?",
    ],
    [
      { trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', listTTLSec: 5 } } },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'trellis.mcp.listTTLSec'. Did you mean `listTtlSec`?",
    ],
    [
      { bindings: [{ ...binding, match: { modle: 'gpt-*' } }] },
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      "agentLoop: unknown option 'bindings[0].match.modle'. Did you mean `model`?",
    ],
    [
      { internalSecret: 'short' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'internalSecret' is a string of 5 characters (not shown); it must be a string of at least 32 characters",
    ],
    [
      { trellis: { mcp: { url: 'ftp://x' } } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'trellis.mcp.url' is \"ftp://x\"; it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'.",
    ],
    [
      { trellis: { mcp: { url: '127.0.0.1:4000/mcp' } } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'trellis.mcp.url' is \"127.0.0.1:4000/mcp\"; it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'.",
    ],
    [
      { bindings: [{ ...binding, trellis: { mcp: { url: 'localhost:4000' } } }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'bindings[0].trellis.mcp.url' is \"localhost:4000\"; it must be the server's http(s) URL",
    ],
    [
      { trellis: { mcp: {} } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'agentLoop: option \'trellis\' is {"mcp":{}}; it must be a Trellis',
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
    [{ selfUrl: 'localhost' }, 'ERR_AGENT_LOOP_INVALID_OPTION', "it must be a base URL like 'http://127.0.0.1:3000'"],
    [
      { selfCall: 'pipe' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'selfCall' is \"pipe\"; it must be 'in-process' (each turn dispatched into the server that took the request, without a socket) or 'socket' (each turn over loopback HTTP); with selfUrl only 'socket', e.g. selfCall: 'socket'.",
    ],
    [
      { selfUrl: 'http://127.0.0.1:3000', selfCall: 'in-process' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'selfCall' is \"in-process\"; it must be 'in-process' (each turn dispatched into the server that took the request, without a socket) or 'socket' (each turn over loopback HTTP); with selfUrl only 'socket', e.g. selfCall: 'socket'.",
    ],
    [
      { logger: () => undefined },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'logger' is a function; it must be a winston-compatible logger",
    ],
    [
      { keepAliveSec: 301 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'keepAliveSec' is 301; it must be a whole number from 1 to 300 (default 10), e.g. keepAliveSec: 10.",
    ],
    [
      { onClientDisconnect: 'cancel' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'onClientDisconnect' is \"cancel\"; it must be 'abort' (cancel the loop's calls when the client goes away) or 'finish'",
    ],
    [
      { maxToolResultBytes: 1023 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'maxToolResultBytes' is 1023; it must be a whole number from 1024 to 10485760 (default 65536), e.g. maxToolResultBytes: 65536.",
    ],
    [
      { maxRepeatedCalls: 0 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'maxRepeatedCalls' is 0; it must be a whole number from 1 to 100 (default 3), e.g. maxRepeatedCalls: 3.",
    ],
    [
      { maxTokensPerLoop: 0 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'maxTokensPerLoop' is 0; it must be a whole number from 1 to 1000000000, or left out for no limit, e.g. maxTokensPerLoop: 50000.",
    ],
    [
      { maxContextBytes: 1000 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'maxContextBytes' is 1000; it must be a whole number from 1024 to 1073741824, or left out for no limit, e.g. maxContextBytes: 200000.",
    ],
    [
      { maxReplyBytes: 512 * 1024 * 1024 },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'maxReplyBytes' is 536870912; it must be a whole number from 1024 to 268435456 (default 33554432), e.g. maxReplyBytes: 33554432.",
    ],
    [
      { maxTokensPerLoop: '5k' },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      'agentLoop: option \'maxTokensPerLoop\' is "5k"; it must be a whole number from 1 to 1000000000',
    ],
    [
      { trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', listTtlSec: -1 } } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'trellis.mcp.listTtlSec' is -1; it must be a whole number from 0 to 86400 (default 60), e.g. listTtlSec: 60.",
    ],
    [
      { trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', forwardHeaders: ['bad header'] } } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'agentLoop: option \'trellis.mcp.forwardHeaders[0]\' is "bad header"; with value "bad header" fails to match the required pattern',
    ],
    [
      { trellis: { mcp: { command: 'node', forwardHeaders: ['authorization'] } } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'option \'trellis\' is {"mcp":{"command":"node","forwardHeaders":["authorization"]}}; it must be a Trellis',
    ],
    [
      { passImages: 'yes' },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'passImages' is \"yes\"; it must be true (tools' images go to the next turn as image parts, for vision models) or false",
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
      { approval: { tool: 'approve tool' } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "fails to match the required pattern: /^[a-zA-Z0-9_-]{1,64}$/; it must be the name of the tool a client declares (in tools) to approve calls, letters, digits, _ and - (default 'approve_tool_call'), e.g. tool: 'approve_tool_call'.",
    ],
    [
      { approval: { ttlSec: 5 } },
      'ERR_AGENT_LOOP_OUT_OF_RANGE',
      "agentLoop: option 'approval.ttlSec' is 5; it must be a whole number from 10 to 86400 (default 600), e.g. ttlSec: 600.",
    ],
    [
      { bindings: [{ ...binding, resetTimeoutOnProgress: 1 }] },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "agentLoop: option 'bindings[0].resetTimeoutOnProgress' is 1; it must be true (a progress notification starts the tool timeout afresh",
    ],
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = failure({ trellis, bindings: [binding], ...options });
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
    [
      { webSearch: { searxngUrl: 'http://127.0.0.1:8888', always: 'yes' } },
      "option 'webSearch.always' is \"yes\"; must be a boolean; it must be { searxngUrl, always?: boolean, maxResults?: 1 to 20 }, e.g. webSearch: { searxngUrl: 'http://127.0.0.1:8888', always: false }.",
    ],
    [
      { webSearch: { searxngUrl: 'http://127.0.0.1:8888', maxResults: 50 } },
      "option 'webSearch.maxResults' is 50; it must be a whole number from 1 to 20 (default 5), e.g. maxResults: 5.",
    ],
    [
      { judge: 5 },
      "option 'judge' is 5; it must be a Judge ({ evaluate }), { rules: [...] }, { llm: { model, policy } } or { judge }, e.g. judge: { rules: [{ surface: 'tool_call', tool: 'shell', action: 'block' }], mode: 'enforce' }.",
    ],
    [
      { judge: { rules: 5 } },
      "option 'judge.rules' is 5; rules are a list like [{ surface: 'tool_call', tool: 'files_*', when: { argument: 'path', matches: '^/etc/' }, action: 'block', reason: 'no system files' }].",
    ],
    [
      { judge: { rules: [{ surface: 'x', action: 'block' }] } },
      "option 'judge.rules[0].surface' is \"x\"; it must be 'tool_call' (before a call runs) or 'context' (its result, before the model reads it), e.g. surface: 'tool_call'.",
    ],
    [
      { judge: { rules: [{ surface: 'tool_call', action: 'deny' }] } },
      "option 'judge.rules[0].action' is \"deny\"; it must be 'allow', 'block', 'rewrite' or 'ask' (a person approves the call first), e.g. action: 'block'.",
    ],
    [
      { judge: { rules: [{ surface: 'tool_call', when: { content: 'x' }, action: 'block' }] } },
      'when.content applies to the context surface; on tool_call use when.argument and when.matches; rules are a list like [',
    ],
    [
      { judge: { rules: [], mode: 'x' } },
      "option 'judge.mode' is \"x\"; it must be 'enforce' (verdicts apply) or 'monitor' (verdicts are only logged), e.g. mode: 'enforce'.",
    ],
    [
      { judge: { llm: { policy: 'p' } } },
      "option 'judge.llm.model' is undefined; it must be { model, policy }, e.g. llm: { model: 'gpt-4o-mini', policy: 'Block any call that deletes data.' }.",
    ],
    [
      { judge: { rules: [], timeoutSec: 0 } },
      "option 'judge.timeoutSec' is 0; it must be a number of seconds from 0.1 to 120 (default 10), e.g. timeoutSec: 10.",
    ],
    [
      { judge: { rules: [], onError: 'pass' } },
      "option 'judge.onError' is \"pass\"; it must be 'block' (a failing judge blocks) or 'allow', e.g. onError: 'block'.",
    ],
    [
      { logger: { error() {} } },
      "option 'logger.warn' is undefined; it must be a winston-compatible logger with error, warn, info and debug methods, e.g. logger: winston.createLogger().",
    ],
    [
      { internalSecret: 5 },
      "option 'internalSecret' is a number (not shown); it must be a string of at least 32 characters, e.g. the output of `openssl rand -hex 32`; or leave it out and set MCP_INTERNAL_SECRET.",
    ],
  ])('names the expected shape and an example for %j', (options, message) => {
    const error = failure({ trellis, bindings: [binding], ...options });
    expect(error.code).toMatch(/^ERR_AGENT_LOOP_(INVALID_OPTION|OUT_OF_RANGE)$/);
    expect(error.message).toContain(message);
    expect(error.message).not.toMatch(/is required|must be one of \[/);
  });

  it('never shows a secret in an error message (internalSecret, MCP headers, stdio env)', () => {
    const secret = 'sk-live-never-logged';
    const messages = [
      failure({ trellis, bindings: [binding], internalSecret: secret }).message,
      failure({ trellis: { mcp: { headers: { authorization: secret } } }, bindings: [binding] }).message,
      failure({ trellis: { mcp: { env: { TOKEN: secret } } }, bindings: [binding] }).message,
      failure({
        trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', headers: { authorization: 5 } } },
        bindings: [binding],
      }).message,
    ];
    for (const message of messages) expect(message).not.toContain(secret);
    expect(messages[1]).toContain(`option 'trellis' is {"mcp":{"headers":"[not shown]"}}`);
    expect(messages[2]).toContain(`option 'trellis' is {"mcp":{"env":"[not shown]"}}`);
    const oauth = failure({ trellis: { mcp: { command: 'x', oauth: { clientSecret: secret } } }, bindings: [binding] });
    expect(oauth.message).toContain(
      `option 'trellis' is {"mcp":{"command":"x","oauth":{"clientSecret":"[not shown]"}}}`,
    );
  });

  it("never shows a URL's user info or query string, nor a credential in stdio args", () => {
    const messages = [
      failure({ trellis: { mcp: { url: 'ftp://ada:pw0rd@x/mcp?key=abc123' } }, bindings: [binding] }).message,
      failure({
        trellis: {
          mcp: {
            command: 'node',
            args: ['--api-key', 'k-0f9e8d', '--token=t-0f9e8d'],
            forwardHeaders: ['authorization'],
          },
        },
        bindings: [binding],
      }).message,
    ];
    expect(messages[0]).toContain(`option 'trellis.mcp.url' is "ftp://[redacted]@x/mcp?[redacted]"`);
    expect(messages[1]).toContain(
      `option 'trellis' is {"mcp":{"command":"node","args":["--api-key","[redacted]","--token=[redacted]`,
    );
    for (const secret of ['pw0rd', 'abc123', 'k-0f9e8d', 't-0f9e8d']) expect(messages.join('\n')).not.toContain(secret);
  });

  it("mcpTrellis never shows a bad URL's credentials", () => {
    expect(() => mcpTrellis({ url: 'ftp://ada:pw0rd@x/mcp?key=abc123' })).toThrow(
      `mcpTrellis: option 'url' is "ftp://[redacted]@x/mcp?[redacted]"; it must be the server's http(s) URL, scheme included, e.g. url: 'http://127.0.0.1:4000/mcp'.`,
    );
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
