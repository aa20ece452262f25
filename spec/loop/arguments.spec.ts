import { parseArguments } from '../../lib/loop/arguments';
import { toolOutcomeText } from '../../lib/tool-outcome';

const refusal = (raw: unknown) => {
  const parsed = parseArguments('t', raw);
  return 'invalid' in parsed ? toolOutcomeText(parsed.invalid) : parsed;
};

describe('parseArguments', () => {
  it.each([
    ['{"id":"a"}', { id: 'a' }],
    ['', {}],
    [undefined, {}],
    ['  ', {}],
  ])('parses %j', (raw, parsed) => {
    expect(parseArguments('t', raw)).toEqual({ arguments: parsed });
  });

  it.each([
    ['[1]', "tool error: arguments for 't' must be a JSON object, got an array"],
    ['42', "tool error: arguments for 't' must be a JSON object, got 42"],
    ['null', "tool error: arguments for 't' must be a JSON object, got null"],
    [{ id: 'a' }, "tool error: arguments for 't' must be a JSON object encoded as a string"],
  ])('refuses %j', (raw, text) => {
    expect(refusal(raw)).toBe(text);
  });

  it('says why JSON does not parse', () => {
    expect(refusal('{"a":')).toMatch(/^tool error: arguments for 't' are not valid JSON \(.+\)$/);
  });

  it('never lets __proto__ land', () => {
    const parsed = (parseArguments('t', '{"__proto__":{"polluted":true},"nested":{"__proto__":{"polluted":true}},"ok":1}') as { arguments: Record<string, unknown> }).arguments;
    expect(parsed).toEqual({ nested: {}, ok: 1 });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['nested', 'ok']);
  });
});
