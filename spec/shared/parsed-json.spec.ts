import { parsedOrUndefined } from '../../lib/shared/parsed-json';

describe('parsedOrUndefined: what a JSON text says', () => {
  it('reads JSON, undefined when it is not JSON', () => {
    expect(parsedOrUndefined('{"a":1}')).toEqual({ a: 1 });
    expect(parsedOrUndefined('{')).toBeUndefined();
  });

  it('reads any value as its text (a Buffer), undefined for no text at all', () => {
    expect(parsedOrUndefined(Buffer.from('[1,"two"]'))).toEqual([1, 'two']);
    expect(parsedOrUndefined(undefined)).toBeUndefined();
  });
});
