import { callArguments, parseArguments, withInput } from '../../lib/loop/arguments';
import { toolOutcomeText } from '../../lib/loop/tool-outcome';

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
    const parsed = (
      parseArguments('t', '{"__proto__":{"polluted":true},"nested":{"__proto__":{"polluted":true}},"ok":1}') as {
        arguments: Record<string, unknown>;
      }
    ).arguments;
    expect(parsed).toEqual({ nested: {}, ok: 1 });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['nested', 'ok']);
  });
});

describe('callArguments: a call whose wire holds its arguments parsed (Messages’ input)', () => {
  const messagesCall = (input: unknown) => withInput({ arguments: JSON.stringify(input) }, input);

  it.each([
    [JSON.parse('{"__proto__":{"polluted":true},"nested":{"__proto__":1,"list":[{"__proto__":2,"x":-0}]},"ok":1}')],
    [[1]],
    [42],
    ['  '],
    [{}],
  ])('reads %j as parsing its serialised text would', (input) => {
    expect(callArguments('t', messagesCall(input))).toEqual(parseArguments('t', JSON.stringify(input)));
  });

  it('hands the tool a copy: the conversation’s input is not the object a tool may change', () => {
    const input = { list: [1], nested: { a: 1 } };
    const parsed = callArguments('t', messagesCall(input)) as { arguments: Record<string, unknown> };
    expect(parsed.arguments).toEqual(input);
    expect(parsed.arguments.nested).not.toBe(input.nested);
    expect(parsed.arguments.list).not.toBe(input.list);
    expect(
      Object.is((callArguments('t', messagesCall({ x: -0 })) as { arguments: { x: number } }).arguments.x, 0),
    ).toBe(true);
  });

  it('parses the text of a call with no parsed input', () => {
    expect(callArguments('t', { arguments: '{"id":"a"}' })).toEqual({ arguments: { id: 'a' } });
  });
});
