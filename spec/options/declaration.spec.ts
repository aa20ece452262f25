import Joi from 'joi';
import { AgentLoopError } from '../../lib/errors';
import {
  defaulted,
  defaultOf,
  docRows,
  hintsOf,
  option,
  required,
  schemaOf,
  validator,
  wholeNumber,
} from '../../lib/options/declaration';

const inner = {
  url: required<string>({ schema: Joi.string().uri(), hint: 'it must be a URL', qualified: true }),
  ttlSec: wholeNumber(0, 60, 10, { does: 'how long' }),
};
const declarations = {
  name: required<string>({ schema: Joi.string(), hint: "it must be a name, e.g. 'a'" }),
  servers: defaulted<unknown[]>({
    schema: Joi.array().items(schemaOf(inner)).default([]),
    list: true,
    inner,
    doc: { range: 'a list', fallback: '`[]`', does: 'the servers' },
  }),
  mode: option<'on' | 'off'>({ schema: Joi.string().valid('on', 'off'), hint: "it must be 'on' or 'off'" }),
};

describe('one option, declared once', () => {
  it("gives each hint under the option's name, a qualified one under its parent's too, a whole number's naming it", () => {
    expect(Object.fromEntries(hintsOf(declarations))).toEqual({
      name: "it must be a name, e.g. 'a'",
      'servers.url': 'it must be a URL',
      ttlSec: 'it must be a whole number from 0 to 60 (default 10), e.g. ttlSec: 10',
      mode: "it must be 'on' or 'off'",
    });
  });

  it('refuses two different hints for options of one name: a message would give the wrong fix', () => {
    const clash = {
      a: option({ schema: Joi.any(), inner: { mode: option({ schema: Joi.any(), hint: 'it must be a number' }) } }),
      mode: declarations.mode,
    };
    expect(() => hintsOf(clash)).toThrow("two hints for options named 'mode'");
  });

  it("lists the doc rows by path, a list's inner options under `[]`", () => {
    expect(docRows(declarations)).toEqual([
      { option: 'servers[]', range: 'a list', fallback: '`[]`', does: 'the servers' },
      { option: 'servers[].ttlSec', range: '0 to 60', fallback: '10', does: 'how long' },
    ]);
  });

  it('reads a default where the schema keeps it', () => {
    expect(defaultOf(inner.ttlSec)).toBe(10);
    expect(defaultOf(declarations.servers)).toEqual([]);
  });

  it('validates with the hints, naming the component, the option, the value and the fix', () => {
    const validate = validator<{ name: string; servers: { ttlSec: number }[] }>(
      'thing',
      schemaOf(declarations),
      declarations,
    );
    expect(validate({ name: 'a', servers: [{ url: 'http://x' }] })).toEqual({
      name: 'a',
      servers: [{ url: 'http://x', ttlSec: 10 }],
    });
    expect(() => validate({ name: 'a', servers: [{ url: 'http://x', ttlSec: 0.5 }] })).toThrow(
      new AgentLoopError(
        'ERR_AGENT_LOOP_OUT_OF_RANGE',
        "thing: option 'servers[0].ttlSec' is 0.5; it must be a whole number from 0 to 60 (default 10), e.g. ttlSec: 10.",
      ),
    );
    expect(() => validate({ name: 'a', servers: [{ url: 5 }] })).toThrow(
      "thing: option 'servers[0].url' is 5; it must be a URL.",
    );
    expect(() => validate({ name: 'a', mdoe: 'on' })).toThrow(
      "thing: unknown option 'mdoe'. Did you mean `mode`? Known options here: name, servers, mode.",
    );
  });
});
