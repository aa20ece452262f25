import Joi from 'joi';
import { AgentLoopError } from '../../lib/errors';
import { configOf } from '../../lib/options/agent-loop';
import { validated } from '../../lib/options/option-error';

const schema = Joi.object({
  maxTurns: Joi.number().integer().min(1).max(50),
  name: Joi.string()
    .pattern(/^[a-z]+$/)
    .messages({ 'string.pattern.base': '{{#label}} must be lower-case letters' }),
  internalSecret: Joi.string().min(32),
  trellis: Joi.alternatives().try(
    Joi.object({
      mcp: Joi.object({
        url: Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .required(),
        listTtlSec: Joi.number(),
        auth: Joi.object({ redirectUrl: Joi.string().required() }),
      }).required(),
    }),
    Joi.object({
      mcp: Joi.object({ command: Joi.string().required(), args: Joi.array().items(Joi.string()) }).required(),
    }),
  ),
  bindings: Joi.array()
    .items(Joi.object({ name: Joi.string().required() }))
    .unique('name'),
});
const hints = new Map([
  ['maxTurns', 'it must be a whole number from 1 to 50, e.g. maxTurns: 6'],
  ['name', "it must name the binding, e.g. name: 'notes'"],
  ['internalSecret', 'it must be at least 32 characters'],
  [
    'trellis',
    "it must be { mcp: { url } } or { mcp: { command } }, e.g. trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp' } }",
  ],
  ['bindings', 'each binding needs a name of its own'],
]);

function refusal(value: unknown, component?: string): AgentLoopError {
  try {
    validated(schema, value, hints, component);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentLoopError);
    return error as AgentLoopError;
  }
  throw new Error('validated took it');
}

describe('validated', () => {
  it('hands back a valid value as it is, nothing converted', () => {
    expect(validated(schema, { maxTurns: 6 }, hints)).toEqual({ maxTurns: 6 });
    expect(refusal({ maxTurns: '6' }).code).toBe('ERR_AGENT_LOOP_OUT_OF_RANGE');
  });

  it("names the option, the value and the fix from the option's hint; a number out of range is OUT_OF_RANGE", () => {
    expect(refusal({ maxTurns: 0 })).toEqual(
      new AgentLoopError(
        'ERR_AGENT_LOOP_OUT_OF_RANGE',
        "agentLoop: option 'maxTurns' is 0; it must be a whole number from 1 to 50, e.g. maxTurns: 6.",
      ),
    );
    expect(refusal({ maxTurns: Infinity }).message).toBe(
      "agentLoop: option 'maxTurns' is Infinity; it must be a whole number from 1 to 50, e.g. maxTurns: 6.",
    );
  });

  it("keeps a custom message's words beside the hint", () => {
    expect(refusal({ name: 'Notes' })).toEqual(
      new AgentLoopError(
        'ERR_AGENT_LOOP_INVALID_OPTION',
        "agentLoop: option 'name' is \"Notes\"; must be lower-case letters; it must name the binding, e.g. name: 'notes'.",
      ),
    );
  });

  it('names the component that validates', () => {
    expect(refusal({ maxTurns: 0 }, 'mcpTrellis').message).toMatch(/^mcpTrellis: option 'maxTurns' is 0;/);
  });

  it('guesses a misspelt key, before any other complaint', () => {
    expect(refusal({ maxturns: 6, name: 'Bad' })).toEqual(
      new AgentLoopError(
        'ERR_AGENT_LOOP_UNKNOWN_OPTION',
        "agentLoop: unknown option 'maxturns'. Did you mean `maxTurns`? Known options here: maxTurns, name, internalSecret, trellis, bindings.",
      ),
    );
    expect(refusal({ colour: 'red' }).message).toBe(
      "agentLoop: unknown option 'colour'. Known options here: maxTurns, name, internalSecret, trellis, bindings.",
    );
  });

  it.each([
    ['maxTurnsPerLoop', 'defaultMaxTurns'],
    ['maxTurnPerLoop', 'defaultMaxTurns'],
    ['maxTokenPerLoop', 'maxTokensPerLoop'],
    ['totalBudgetSeconds', 'totalBudgetSec'],
  ])("guesses a name that keeps the meaning of '%s' (words left out or added, none swapped): `%s`", (key, guess) => {
    expect(() => configOf({ [key]: 5 } as never)).toThrow(
      `agentLoop: unknown option '${key}'. Did you mean \`${guess}\`?`,
    );
  });

  it("guesses a binding's maxTurns for its maxTurnsPerLoop, not maxTokensPerLoop", () => {
    const binding = { name: 'notes', match: { model: 'agent' }, hierarchy: ['notes_open'], maxTurnsPerLoop: 5 };
    expect(() => configOf({ bindings: [binding] } as never)).toThrow(
      "agentLoop: unknown option 'bindings[0].maxTurnsPerLoop'. Did you mean `maxTurns`?",
    );
  });

  it('knows the keys of every alternative of a union on the way to a misspelt key', () => {
    expect(refusal({ trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', listTTLSec: 60 } } }).message).toBe(
      "agentLoop: unknown option 'trellis.mcp.listTTLSec'. Did you mean `listTtlSec`? Known options here: url, listTtlSec, auth, command, args.",
    );
  });

  it("says the deepest complaint inside the union the value had the shape of, not the union's list of shapes", () => {
    expect(refusal({ trellis: { mcp: { url: '127.0.0.1:4000/mcp' } } }).message).toMatch(
      /^agentLoop: option 'trellis\.mcp\.url' is "127\.0\.0\.1:4000\/mcp"; .*it must be \{ mcp: \{ url \} \}/,
    );
  });

  it('names a key missing deeper in the union than any other alternative misses or does not know one', () => {
    expect(refusal({ trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp', auth: {} } } }).message).toBe(
      "agentLoop: option 'trellis.mcp.auth.redirectUrl' is undefined; it must be { mcp: { url } } or { mcp: { command } }, e.g. trellis: { mcp: { url: 'http://127.0.0.1:4000/mcp' } }.",
    );
    for (const mcp of [{}, { command: 'node', auth: { redirectUrl: 'x' } }])
      expect(refusal({ trellis: { mcp } }).message).toMatch(/^agentLoop: option 'trellis' is \{/);
  });

  it('never shows a secret, saying only what it is', () => {
    const message = refusal({ internalSecret: 'too-short-secret' }).message;
    expect(message).toBe(
      "agentLoop: option 'internalSecret' is a string of 16 characters (not shown); it must be at least 32 characters.",
    );
  });

  it('redacts credentials in a value it shows, and cuts a long one', () => {
    expect(refusal({ name: 'sk-live0123456789abcdefXYZ' }).message).toContain('option \'name\' is "[redacted]";');
    expect(refusal({ name: 'X'.repeat(200) }).message).toContain(`option 'name' is "${'X'.repeat(76)}...;`);
  });

  it('points at the repeated key of a list unique by it', () => {
    expect(refusal({ bindings: [{ name: 'notes' }, { name: 'notes' }] }).message).toMatch(
      /^agentLoop: option 'bindings\[1\]\.name' is "notes";/,
    );
  });
});
