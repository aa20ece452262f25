import { show, valueAt } from '../../lib/options/shown-value';

describe('show: a bad value as an error message may show it', () => {
  it('shows JSON, a function and a number JSON cannot hold', () => {
    expect(show({ model: 'agent' })).toBe('{"model":"agent"}');
    expect(show(() => 1)).toBe('a function');
    expect(show(Infinity)).toBe('Infinity');
    expect(show(undefined)).toBe('undefined');
  });

  it('never shows a secret option, saying only what it is, nor a secret inside a value', () => {
    expect(show('too-short-secret', 'internalSecret')).toBe('a string of 16 characters (not shown)');
    expect(show(['k1', 'k2'], 'clientKeys')).toBe('an array (not shown)');
    expect(show({ url: 'http://x/mcp', headers: { authorization: 'Bearer abc' } })).not.toContain('abc');
  });

  it('cuts a long value', () => {
    expect(show('X'.repeat(200))).toBe(`"${'X'.repeat(76)}...`);
  });
});

describe('valueAt: the value at a path', () => {
  it('walks keys and list indexes, undefined where nothing is', () => {
    const root = { bindings: [{ name: 'notes' }] };
    expect(valueAt(root, ['bindings', 0, 'name'])).toBe('notes');
    expect(valueAt(root, ['bindings', 1, 'name'])).toBeUndefined();
  });
});
