import { canonicalJson } from '../../lib/shared/canonical-json';

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: [{ d: 2, c: null }] }, '{"a":[{"c":null,"d":2}],"b":1}'],
    [{ a: undefined, b: 'x' }, '{"b":"x"}'],
    [[undefined, 1], '[null,1]'],
    ['text', '"text"'],
  ])('writes %j as %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });
});
