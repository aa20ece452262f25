import { mcpTrellis } from '../../lib/trellis/mcp';
import { agentLoop, AgentLoopError } from '../../lib';
import { localTrellis } from '../../lib/trellis/local';
import { optionFailure } from '../helpers/option-failure';

const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
const binding = { name: 'b', match: { model: '*' }, hierarchy: 'a' };
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

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
      { trellis: { mcp: {} } },
      'ERR_AGENT_LOOP_INVALID_OPTION',
      'agentLoop: option \'trellis\' is {"mcp":{}}; it must be a Trellis',
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
  ])('rejects %j at start-up with %s', (options, code, message) => {
    const error = optionFailure({ trellis, bindings: [binding], ...options });
    expect(error).toBeInstanceOf(AgentLoopError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });

  it.each([
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
    const error = optionFailure({ trellis, bindings: [binding], ...options });
    expect(error.code).toMatch(/^ERR_AGENT_LOOP_(INVALID_OPTION|OUT_OF_RANGE)$/);
    expect(error.message).toContain(message);
    expect(error.message).not.toMatch(/is required|must be one of \[/);
  });

  it('never shows a secret in an error message (internalSecret, MCP headers, stdio env)', () => {
    const secret = 'sk-live-never-logged';
    const messages = [
      optionFailure({ trellis, bindings: [binding], internalSecret: secret }).message,
      optionFailure({ trellis: { mcp: { headers: { authorization: secret } } }, bindings: [binding] }).message,
      optionFailure({ trellis: { mcp: { env: { TOKEN: secret } } }, bindings: [binding] }).message,
      optionFailure({
        trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', headers: { authorization: 5 } } },
        bindings: [binding],
      }).message,
    ];
    for (const message of messages) expect(message).not.toContain(secret);
    expect(messages[1]).toContain(`option 'trellis' is {"mcp":{"headers":"[not shown]"}}`);
    expect(messages[2]).toContain(`option 'trellis' is {"mcp":{"env":"[not shown]"}}`);
    const oauth = optionFailure({
      trellis: { mcp: { command: 'x', oauth: { clientSecret: secret } } },
      bindings: [binding],
    });
    expect(oauth.message).toContain(
      `option 'trellis' is {"mcp":{"command":"x","oauth":{"clientSecret":"[not shown]"}}}`,
    );
  });

  it("never shows a URL's user info or query string, nor a credential in stdio args", () => {
    const messages = [
      optionFailure({ trellis: { mcp: { url: 'ftp://ada:pw0rd@x/mcp?key=abc123' } }, bindings: [binding] }).message,
      optionFailure({
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
});
