import { inflateRawSync } from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import { credentialOf, open, seal } from '../lib/sealed-token';
import { markerKey } from '../lib/marker';

const key = markerKey('a gateway secret that is long enough for tokens');
const payload = { results: ['note ids: welcome, groceries, standup'], n: 3 };
const hour = { ttlSec: 3600 };

describe('a sealed token (AES-256-GCM under a key derived from the marker key)', () => {
  it('opens for the same key, purpose and credential, with the payload and its size', () => {
    const token = seal(key, 'continuation\nnotes\ns1', payload, { ...hour, credential: 'Bearer alice' });
    expect(token).toMatch(/^[0-9a-z]+\.[\w-]+$/);
    expect(open(key, 'continuation\nnotes\ns1', token, { credential: 'Bearer alice', maxBytes: 1024 })).toEqual({ payload, bytes: JSON.stringify(payload).length });
  });

  it('reveals nothing of its payload to whoever holds it without the key', () => {
    const token = seal(key, 'p', payload, hour);
    const box = Buffer.from(token.split('.')[1], 'base64url');
    expect(box.toString('latin1')).not.toContain('groceries');
    expect(() => inflateRawSync(box.subarray(29))).toThrow();
    expect(seal(key, 'p', payload, hour)).not.toBe(token);
  });

  it.each([
    ['another purpose (binding, call id)', { purpose: 'q' }],
    ['another client credential', { credential: 'Bearer bob' }],
    ['no credential, sealed with one', { credential: undefined }],
    ['another key', { key: markerKey('another gateway secret, long enough as well') }],
  ])('does not open for %s', (_case, change) => {
    const token = seal(key, 'p', payload, { ...hour, credential: 'Bearer alice' });
    const given = { key, purpose: 'p', credential: 'Bearer alice' as string | undefined, ...change };
    expect(open(given.key, given.purpose, token, { credential: given.credential, maxBytes: 1024 })).toEqual({ failed: 'invalid' });
  });

  it('does not open once tampered with, its expiry or its ciphertext', () => {
    const token = seal(key, 'p', payload, hour);
    const [expiry, box] = token.split('.');
    const later = `${(parseInt(expiry, 36) + 3_600_000).toString(36)}.${box}`;
    const flipped = `${expiry}.${box.slice(0, 40)}${box[40] === 'A' ? 'B' : 'A'}${box.slice(41)}`;
    for (const bad of [later, flipped, `${expiry}.`, 'x', '', `${expiry}.${box.slice(0, 20)}`]) expect(open(key, 'p', bad, { maxBytes: 1024 })).toEqual({ failed: 'invalid' });
  });

  it('expires after its ttl', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const token = seal(key, 'p', payload, { ttlSec: 60 });
      jest.setSystemTime(1_000_000 + 59_999);
      expect(open(key, 'p', token, { maxBytes: 1024 })).toEqual({ payload, bytes: expect.any(Number) });
      jest.setSystemTime(1_000_000 + 60_000);
      expect(open(key, 'p', token, { maxBytes: 1024 })).toEqual({ failed: 'expired' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('never inflates past maxBytes', () => {
    const token = seal(key, 'p', { text: 'a'.repeat(1_000_000) }, hour);
    expect(token.length).toBeLessThan(2_000);
    expect(open(key, 'p', token, { maxBytes: 64 * 1024 })).toEqual({ failed: 'too large' });
  });

  it.each([
    [{ authorization: 'Bearer a' }, 'Bearer a'],
    [{ 'x-api-key': 'sk-ant' }, 'sk-ant'],
    [{ authorization: 'Bearer a', 'x-api-key': 'sk-ant' }, 'Bearer a'],
    [{ authorization: '' }, undefined],
    [{}, undefined],
  ])("takes the client's credential from %j", (headers, credential) => {
    expect(credentialOf({ headers } as unknown as IncomingMessage)).toBe(credential);
  });
});
