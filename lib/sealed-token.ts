import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A sealed token: a JSON payload compressed, then encrypted and authenticated with AES-256-GCM under a key derived
 * (HKDF) from the marker key. The purpose (what the token is for, e.g. `continuation` and the binding), the client's
 * credential and the expiry are authenticated with it: a token opens only for the same purpose, the same credential,
 * before its expiry. Only whoever holds the key reads it; the client carrying it learns its length and nothing else.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEAD_BYTES = 1 + IV_BYTES + TAG_BYTES;

export interface SealOptions {
  ttlSec: number;
  /** the client's credential (see `credentialOf`): only a request carrying the same one opens the token */
  credential?: string;
}

export interface OpenOptions {
  credential?: string;
  /** the payload's JSON is at most this long once inflated, or the token does not open */
  maxBytes: number;
}

export type Opened<T> = { payload: T; bytes: number } | { failed: 'invalid' | 'expired' | 'too large' };

const derived = new WeakMap<Buffer, Buffer>();

function sealingKey(markerKey: Buffer): Buffer {
  let key = derived.get(markerKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', markerKey, Buffer.alloc(0), 'agent-loop sealed token v1', 32));
    derived.set(markerKey, key);
  }
  return key;
}

/** What a token is bound to; the credential only as its hash, the expiry as sent in the clear header. */
function associated(purpose: string, credential: string | undefined, expiresAt: number): Buffer {
  const hash = credential === undefined ? '' : createHash('sha256').update(credential).digest('base64url');
  return Buffer.from(`agent-loop sealed v${VERSION}\n${purpose}\n${hash}\n${expiresAt}`);
}

/** The client's credential as the request carries it: `Authorization`, else `x-api-key`; undefined without one. */
export function credentialOf(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization ?? req.headers['x-api-key'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `<expiry ms, base 36>.<version, iv, tag and ciphertext in base64url>`: no `.` inside either part. */
export function seal(markerKey: Buffer, purpose: string, payload: unknown, options: SealOptions): string {
  const expiresAt = Date.now() + options.ttlSec * 1000;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(markerKey), iv);
  cipher.setAAD(associated(purpose, options.credential, expiresAt));
  const sealed = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(payload))), cipher.final()]);
  const box = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), sealed]);
  return `${expiresAt.toString(36)}.${box.toString('base64url')}`;
}

/** The payload of a token sealed for this purpose and credential and not yet expired; else why not. */
export function open<T = unknown>(markerKey: Buffer, purpose: string, token: string, options: OpenOptions): Opened<T> {
  const cut = token.indexOf('.');
  const expiresAt = cut > 0 && cut <= 12 ? parseInt(token.slice(0, cut), 36) : NaN;
  const box = Buffer.from(token.slice(cut + 1), 'base64url');
  if (!Number.isSafeInteger(expiresAt) || box.length < HEAD_BYTES || box[0] !== VERSION) return { failed: 'invalid' };
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(markerKey), box.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(associated(purpose, options.credential, expiresAt));
  decipher.setAuthTag(box.subarray(1 + IV_BYTES, HEAD_BYTES));
  let deflated: Buffer;
  try {
    deflated = Buffer.concat([decipher.update(box.subarray(HEAD_BYTES)), decipher.final()]);
  } catch {
    return { failed: 'invalid' };
  }
  if (expiresAt <= Date.now()) return { failed: 'expired' };
  let json: Buffer;
  try {
    json = inflateRawSync(deflated, { maxOutputLength: options.maxBytes });
  } catch {
    return { failed: 'too large' }; // authentic, so written by us: only a smaller bound than the sealer's fails here
  }
  return { payload: JSON.parse(json.toString('utf8')) as T, bytes: json.length };
}
