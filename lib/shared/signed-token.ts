import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { keyDigest } from './credential';

/**
 * The loop's tokens, `<expiry ms, base 36>.<box, base64url>`: the marker is signed (HMAC-SHA256: its payload readable,
 * unforgeable), continuations and approvals are sealed (AES-256-GCM: unreadable too, their JSON payload deflated).
 * Each kind has its own key, derived (HKDF-SHA256) from the agentLoop's secret, and every token is bound to its
 * purpose (kind, context, the client's identity) and to its expiry: it opens only for the same, before it expires.
 */
export type TokenKind = 'marker' | 'continuation' | 'approval' | 'input' | 'oauth' | 'oauth-state' | 'fleet';

export interface Purpose {
  kind: TokenKind;
  /** what else the token is for, e.g. the binding and the model's call id */
  context?: string;
  /** the client's identity (`clientIdentity`): only a request of the same client opens the token */
  credential?: string;
}

export type Verified = { payload: string; expiresAt: number } | { failed: 'invalid' | 'expired' };
export type Opened<T> = { payload: T; bytes: number } | { failed: 'invalid' | 'expired' | 'too large' };

const VERSION = 2;
const MAC_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Whether the process's secret comes from env MCP_INTERNAL_SECRET (and so may be shared with other processes). */
export const hasSharedSecret = process.env.MCP_INTERNAL_SECRET !== undefined;
const processSecret = Buffer.from(process.env.MCP_INTERNAL_SECRET ?? randomBytes(32).toString('hex'));
const given = new Map<string, Buffer>();

/** An agentLoop's secret: its `internalSecret`, else the process's (env MCP_INTERNAL_SECRET, else 32 random bytes). */
export function tokenSecret(secret?: string): Buffer {
  if (secret === undefined) return processSecret;
  let key = given.get(secret);
  if (!key) {
    key = Buffer.from(secret);
    given.set(secret, key);
  }
  return key;
}

const derived = new WeakMap<Buffer, Map<TokenKind, Buffer>>();

function keyFor(secret: Buffer, kind: TokenKind): Buffer {
  let keys = derived.get(secret);
  if (!keys) derived.set(secret, (keys = new Map()));
  let key = keys.get(kind);
  if (!key)
    keys.set(
      kind,
      (key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `agent-loop ${kind} v${VERSION}`, 32))),
    );
  return key;
}

/** What a token is bound to; the credential only as its hash, the expiry as sent in the clear. */
function associated({ kind, context = '', credential }: Purpose, expiresAt: number): string {
  const hash = credential === undefined ? '' : keyDigest(credential).toString('base64url');
  return `agent-loop v${VERSION}\n${kind}\n${context}\n${hash}\n${expiresAt}`;
}

const tokenOf = (expiresAt: number, box: Buffer) => `${expiresAt.toString(36)}.${box.toString('base64url')}`;

/** A token's expiry and box of this version, only as `tokenOf` writes them (one spelling per token). */
function parsed(token: string, minBytes: number): { expiresAt: number; box: Buffer } | undefined {
  const cut = token.indexOf('.');
  const expiresAt = cut > 0 && cut <= 12 ? parseInt(token.slice(0, cut), 36) : NaN;
  const box = Buffer.from(token.slice(cut + 1), 'base64url');
  if (
    !Number.isSafeInteger(expiresAt) ||
    box.length < 1 + minBytes ||
    box[0] !== VERSION ||
    tokenOf(expiresAt, box) !== token
  )
    return undefined;
  return { expiresAt, box };
}

/** The signature of `signed` (version and payload) for its purpose and expiry, the bound text length-prefixed. */
function mac(secret: Buffer, purpose: Purpose, expiresAt: number, signed: Buffer): Buffer {
  const bound = associated(purpose, expiresAt);
  return createHmac('sha256', keyFor(secret, purpose.kind))
    .update(`${Buffer.byteLength(bound)}\n${bound}`)
    .update(signed)
    .digest();
}

/** `payload` signed: whoever holds the token reads it, only whoever holds the secret writes one. */
export function sign(secret: Buffer, purpose: Purpose, payload: string, expiresAt: number): string {
  const signed = Buffer.concat([Buffer.from([VERSION]), Buffer.from(payload)]);
  return tokenOf(expiresAt, Buffer.concat([signed, mac(secret, purpose, expiresAt, signed)]));
}

/** The payload of a token signed for this purpose and not yet expired, its signature checked in constant time. */
export function verify(secret: Buffer, purpose: Purpose, token: string): Verified {
  const read = parsed(token, MAC_BYTES);
  if (!read) return { failed: 'invalid' };
  const signed = read.box.subarray(0, -MAC_BYTES);
  if (!timingSafeEqual(read.box.subarray(-MAC_BYTES), mac(secret, purpose, read.expiresAt, signed)))
    return { failed: 'invalid' };
  if (read.expiresAt <= Date.now()) return { failed: 'expired' };
  return { payload: signed.subarray(1).toString('utf8'), expiresAt: read.expiresAt };
}

/** `payload` sealed: only whoever holds the secret reads it; the client carrying it learns its length, nothing else. */
export function seal(secret: Buffer, purpose: Purpose, payload: unknown, expiresAt: number): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, purpose.kind), iv);
  cipher.setAAD(Buffer.from(associated(purpose, expiresAt)));
  const sealed = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(payload))), cipher.final()]);
  return tokenOf(expiresAt, Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), sealed]));
}

/** The payload of a token sealed for this purpose and not yet expired, at most `maxBytes` of JSON once inflated. */
export function open<T = unknown>(secret: Buffer, purpose: Purpose, token: string, maxBytes: number): Opened<T> {
  const read = parsed(token, IV_BYTES + TAG_BYTES);
  if (!read) return { failed: 'invalid' };
  const { box, expiresAt } = read;
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, purpose.kind), box.subarray(1, 1 + IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(associated(purpose, expiresAt)));
  decipher.setAuthTag(box.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
  let deflated: Buffer;
  try {
    deflated = Buffer.concat([decipher.update(box.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return { failed: 'invalid' };
  }
  if (expiresAt <= Date.now()) return { failed: 'expired' };
  let json: Buffer;
  try {
    json = inflateRawSync(deflated, { maxOutputLength: maxBytes });
  } catch {
    return { failed: 'too large' }; // authentic, so written by us: only a smaller bound than the sealer's fails here
  }
  return { payload: JSON.parse(json.toString('utf8')) as T, bytes: json.length };
}
