import type { IncomingMessage } from 'node:http';
import { bearerOf, credentialOf, isKnownKey, keyDigest, presentedKeys } from '../lib/credential';

describe("the client's credential", () => {
  it.each([
    [{ authorization: 'Bearer a' }, 'Bearer a'],
    [{ 'x-api-key': 'sk-ant' }, 'sk-ant'],
    [{ 'x-goog-api-key': 'AIza-key' }, 'AIza-key'],
    [{ authorization: 'Bearer a', 'x-api-key': 'sk-ant' }, 'Bearer a'],
    [{ authorization: '' }, undefined],
    [{}, undefined],
  ])("takes the client's credential from %j", (headers, credential) => {
    expect(credentialOf({ headers } as unknown as IncomingMessage)).toBe(credential);
  });

  it.each([
    ['Bearer key-1', 'key-1'],
    ['bearer   key-1  ', 'key-1'],
    ['Bearer key 1', undefined],
    ['Bearer ', undefined],
    ['Basic a2V5LTE=', undefined],
  ])('reads the bearer key of Authorization: %j', (authorization, key) => {
    expect(bearerOf({ authorization })).toBe(key);
  });

  it('takes the bearer key, then x-api-key, as the keys a client presented', () => {
    expect(presentedKeys({ authorization: 'Bearer key-1', 'x-api-key': 'key-2' })).toEqual(['key-1', 'key-2']);
    expect(presentedKeys({ authorization: 'Basic a2V5LTE=' })).toEqual([]);
    expect(presentedKeys({ 'x-goog-api-key': 'key-3' })).toEqual(['key-3']);
  });

  it('knows a key by its digest, among several, and no other', () => {
    const known = ['key-1', 'key-2'].map(keyDigest);
    expect(isKnownKey(['wrong', 'key-2'], known)).toBe(true);
    expect(isKnownKey(['key-'], known)).toBe(false);
    expect(isKnownKey([], known)).toBe(false);
  });
});
