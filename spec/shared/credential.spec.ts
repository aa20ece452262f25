import { bearerOf, CLIENT_KEY_HEADERS, isKnownKey, keyDigest } from '../../lib/shared/credential';
import { WIRES } from '../../lib/wire/wires';

describe("the client's credential", () => {
  it.each([
    ['Bearer key-1', 'key-1'],
    ['bearer   key-1  ', 'key-1'],
    ['Bearer key 1', undefined],
    ['Bearer ', undefined],
    ['Basic a2V5LTE=', undefined],
  ])('reads the bearer key of Authorization: %j', (authorization, key) => {
    expect(bearerOf({ authorization })).toBe(key);
  });

  it('knows a key by its digest, among several, and no other', () => {
    const known = ['key-1', 'key-2'].map(keyDigest);
    expect(isKnownKey(['wrong', 'key-2'], known)).toBe(true);
    expect(isKnownKey(['key-'], known)).toBe(false);
    expect(isKnownKey([], known)).toBe(false);
  });

  it("reads exactly the headers the wires declare their clients' keys in (each wire's apiKey), no fewer, no more", () => {
    expect([...CLIENT_KEY_HEADERS].sort()).toEqual([...new Set(WIRES.map((wire) => wire.apiKey.header))].sort());
  });
});
