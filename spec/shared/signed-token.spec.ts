import crypto from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { open, seal, sign, tokenSecret, verify, type Purpose } from '../../lib/shared/signed-token';

const key = tokenSecret('a gateway secret that is long enough for tokens');
const payload = { results: ['note ids: welcome, groceries, standup'], n: 3 };
const inAnHour = () => Date.now() + 3_600_000;
const continuation: Purpose = { kind: 'continuation', context: 'notes\ns1', credential: 'Bearer alice' };
const marker: Purpose = { kind: 'marker' };

/** Every other way of writing `token` that decodes to the same bytes, and the token cut or lengthened. */
const respelt = (token: string) => {
  const [expiry, box] = token.split('.');
  return [
    `${expiry.toUpperCase()}.${box}`,
    `0${expiry}.${box}`,
    `${expiry}. ${box}`,
    `${expiry}.${box}=`,
    `${expiry}.${box}\tx`,
    `${expiry}.${box.slice(0, -3)}`,
    `${expiry}.`,
    'x',
    '',
  ];
};

describe('the secrets tokens are keyed by', () => {
  it('keeps one secret per internalSecret, and one for the process', () => {
    const secret = tokenSecret('the secret of one agentLoop of this process, long enough');
    expect(tokenSecret('the secret of one agentLoop of this process, long enough')).toBe(secret);
    expect(secret.equals(tokenSecret())).toBe(false);
    expect(tokenSecret()).toBe(tokenSecret());
  });
});

describe('a signed token (HMAC-SHA256 under a key derived per kind)', () => {
  it('verifies for the same secret and purpose, with its payload (readable) and expiry', () => {
    const expiresAt = inAnHour();
    const token = sign(key, marker, 'loop-1', expiresAt);
    expect(token).toMatch(/^[0-9a-z]+\.[\w-]+$/);
    expect(Buffer.from(token.split('.')[1], 'base64url').toString('latin1')).toContain('loop-1');
    expect(verify(key, marker, token)).toEqual({ payload: 'loop-1', expiresAt });
  });

  it.each([
    ['another kind', { purpose: { kind: 'approval' } }],
    ['another context', { purpose: { kind: 'marker', context: 'x' } }],
    ['a credential it was not signed for', { purpose: { kind: 'marker', credential: 'Bearer bob' } }],
    ['another secret', { secret: tokenSecret('another gateway secret, long enough as well') }],
  ] as [string, { purpose?: Purpose; secret?: Buffer }][])('does not verify for %s', (_case, change) => {
    const token = sign(key, marker, 'loop-1', inAnHour());
    expect(verify(change.secret ?? key, change.purpose ?? marker, token)).toEqual({ failed: 'invalid' });
  });

  it('does not verify once tampered with (expiry, payload, signature) or written any other way, its signature compared in constant time', () => {
    const token = sign(key, marker, 'loop-1', inAnHour());
    const [expiry, box] = token.split('.');
    const bytes = Buffer.from(box, 'base64url');
    const flip = (at: number) => {
      const changed = Buffer.from(bytes);
      changed[at] ^= 1;
      return `${expiry}.${changed.toString('base64url')}`;
    };
    const later = `${(parseInt(expiry, 36) + 1).toString(36)}.${box}`;
    const oldVersion = `${expiry}.${Buffer.concat([Buffer.from([1]), bytes.subarray(1)]).toString('base64url')}`;
    const compared = jest.spyOn(crypto, 'timingSafeEqual');
    for (const bad of [later, flip(2), flip(bytes.length - 1), oldVersion, ...respelt(token)])
      expect(verify(key, marker, bad)).toEqual({ failed: 'invalid' });
    expect(compared).toHaveBeenCalled();
    compared.mockRestore();
  });

  it('expires at its expiry', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const token = sign(key, marker, 'loop-1', 1_000_000 + 60_000);
      jest.setSystemTime(1_000_000 + 59_999);
      expect(verify(key, marker, token)).toEqual({ payload: 'loop-1', expiresAt: 1_060_000 });
      jest.setSystemTime(1_000_000 + 60_000);
      expect(verify(key, marker, token)).toEqual({ failed: 'expired' });
    } finally {
      jest.useRealTimers();
    }
  });
});

function inflatedOrEmpty(bytes: Buffer): string {
  try {
    return inflateRawSync(bytes).toString('latin1');
  } catch {
    return '';
  }
}

describe('a sealed token (AES-256-GCM under a key derived per kind)', () => {
  it('opens for the same key, purpose and credential, with the payload and its size', () => {
    const token = seal(key, continuation, payload, inAnHour());
    expect(token).toMatch(/^[0-9a-z]+\.[\w-]+$/);
    expect(open(key, continuation, token, 1024)).toEqual({ payload, bytes: JSON.stringify(payload).length });
  });

  it('reveals nothing of its payload to whoever holds it without the key', () => {
    const token = seal(key, continuation, payload, inAnHour());
    const box = Buffer.from(token.split('.')[1], 'base64url');
    expect(box.toString('latin1')).not.toContain('groceries');
    // random bytes now and then inflate to something: what matters is that it is never the payload
    expect(inflatedOrEmpty(box.subarray(29))).not.toContain('groceries');
    expect(seal(key, continuation, payload, inAnHour())).not.toBe(token);
  });

  it.each([
    ['another kind (its own key)', { purpose: { ...continuation, kind: 'approval' } }],
    ['another context (binding, call id)', { purpose: { ...continuation, context: 'notes\ns2' } }],
    ['another client credential', { purpose: { ...continuation, credential: 'Bearer bob' } }],
    ['no credential, sealed with one', { purpose: { ...continuation, credential: undefined } }],
    ['another key', { secret: tokenSecret('another gateway secret, long enough as well') }],
  ] as [string, { purpose?: Purpose; secret?: Buffer }][])('does not open for %s', (_case, change) => {
    const token = seal(key, continuation, payload, inAnHour());
    expect(open(change.secret ?? key, change.purpose ?? continuation, token, 1024)).toEqual({ failed: 'invalid' });
  });

  it('does not open once tampered with, its expiry or its ciphertext, or written any other way', () => {
    const token = seal(key, continuation, payload, inAnHour());
    const [expiry, box] = token.split('.');
    const later = `${(parseInt(expiry, 36) + 3_600_000).toString(36)}.${box}`;
    const flipped = `${expiry}.${box.slice(0, 40)}${box[40] === 'A' ? 'B' : 'A'}${box.slice(41)}`;
    for (const bad of [later, flipped, `${expiry}.${box.slice(0, 20)}`, ...respelt(token)])
      expect(open(key, continuation, bad, 1024)).toEqual({ failed: 'invalid' });
  });

  it('expires at its expiry', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const token = seal(key, continuation, payload, 1_000_000 + 60_000);
      jest.setSystemTime(1_000_000 + 59_999);
      expect(open(key, continuation, token, 1024)).toEqual({ payload, bytes: expect.any(Number) });
      jest.setSystemTime(1_000_000 + 60_000);
      expect(open(key, continuation, token, 1024)).toEqual({ failed: 'expired' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('never inflates past maxBytes', () => {
    const token = seal(key, continuation, { text: 'a'.repeat(1_000_000) }, inAnHour());
    expect(token.length).toBeLessThan(2_000);
    expect(open(key, continuation, token, 64 * 1024)).toEqual({ failed: 'too large' });
  });
});
