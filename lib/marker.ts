import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

export const INTERNAL_HEADER = 'x-mcp-internal';

const VERDICT = Symbol('agent-loop.internal-verdict');
const SIGNATURE_LENGTH = 43; // base64url of a SHA-256 digest
const keys = new Set<Buffer>();

/** The marker as the request brought it (it stays when the header is removed), and the verdict under each key asked. */
interface Memo {
  value: unknown;
  verdicts: Map<Buffer | undefined, MarkerVerdict>;
}
type Marked = IncomingMessage & { [VERDICT]?: Memo };
export type MarkerVerdict = 'internal' | 'external' | 'forged';

/** Whether the process-wide key comes from env MCP_INTERNAL_SECRET (and so may be shared with other processes). */
export const hasSharedSecret = process.env.MCP_INTERNAL_SECRET !== undefined;

/** The process-wide key when no `internalSecret` is given: env MCP_INTERNAL_SECRET, else 32 random bytes. */
const processKey = Buffer.from(process.env.MCP_INTERNAL_SECRET ?? randomBytes(32).toString('hex'));
keys.add(processKey);

export function markerKey(secret?: string): Buffer {
  if (secret === undefined) return processKey;
  const key = Buffer.from(secret);
  keys.add(key);
  return key;
}

function signature(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** `v1.<loop id>.<expiry ms>.<hmac>`: unforgeable without the key, useless after the loop's deadline. */
export function signMarker(key: Buffer, loopId: string, expiresAt: number): string {
  const payload = `v1.${loopId}.${expiresAt}`;
  return `${payload}.${signature(key, payload)}`;
}

// Every turn of a loop carries the loop's marker, so it is verified once: later turns find it here until it expires.
// Only a marker that verified is ever stored, so a lookup can only succeed for a string that would verify anyway.
// Each entry keeps the key it verified under: a marker of one agentLoop is no proof to another with its own secret.
const MAX_VERIFIED = 4_096;
const verified = new Map<string, { expiresAt: number; key: Buffer }>();

function remember(marker: string, expiresAt: number, key: Buffer): void {
  const now = Date.now();
  for (const [oldest, entry] of verified) {
    if (entry.expiresAt > now && verified.size < MAX_VERIFIED) break;
    verified.delete(oldest);
  }
  verified.set(marker, { expiresAt, key });
}

function verifies(value: unknown, accepted: Iterable<Buffer>): boolean {
  if (typeof value !== 'string' || value.length > 200) return false;
  const known = verified.get(value);
  if (known !== undefined && [...accepted].some((key) => key.equals(known.key))) return known.expiresAt > Date.now();
  const cut = value.lastIndexOf('.');
  const payload = value.slice(0, cut);
  const given = Buffer.from(value.slice(cut + 1));
  const fields = payload.split('.');
  const expiresAt = Number(fields[2]);
  if (cut < 0 || given.length !== SIGNATURE_LENGTH || fields.length !== 3 || fields[0] !== 'v1') return false;
  if (!(expiresAt > Date.now())) return false;
  for (const key of accepted) {
    if (timingSafeEqual(given, Buffer.from(signature(key, payload)))) {
      remember(value, expiresAt, key);
      return true;
    }
  }
  return false;
}

function memoOf(req: IncomingMessage): Memo {
  const marked = req as Marked;
  return (marked[VERDICT] ??= { value: req.headers[INTERNAL_HEADER], verdicts: new Map() });
}

/**
 * Whether `req` is a self-call signed under `key` (one agentLoop's), or with no key under any agentLoop's of this
 * process. Verifies the marker once per key and memoises the verdict on the request; the request is left as it is.
 */
export function markerVerdict(req: IncomingMessage, key?: Buffer): MarkerVerdict {
  const memo = memoOf(req);
  let verdict = memo.verdicts.get(key);
  if (verdict === undefined) {
    verdict = memo.value === undefined ? 'external' : verifies(memo.value, key ? [key] : keys) ? 'internal' : 'forged';
    memo.verdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * Takes the marker off `req`, out of `headers` and out of `rawHeaders` (name, value, name, value...), where a
 * logger may read it, so that it never travels upstream; later questions (`markerVerdict`) still get their answer.
 */
export function removeMarker(req: IncomingMessage): void {
  if (req.headers[INTERNAL_HEADER] === undefined) return;
  memoOf(req);
  delete req.headers[INTERNAL_HEADER];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === INTERNAL_HEADER) raw.splice(i, 2);
}

/** Whether `req` is a turn of any agentLoop in this process: injectors skip every loop's turns. Only a question. */
export function isInternalRequest(req: IncomingMessage): boolean {
  return markerVerdict(req) === 'internal';
}

/**
 * Wraps a return-path injector (system prompt, memory, guardrails) so it skips the loop's self-calls; the marker
 * comes off the request either way, so the injector never sees it and it never travels upstream.
 */
export function skipWhenInternal(middleware: RequestHandler): RequestHandler {
  return function skipWhenInternalRequest(req, res, next) {
    const internal = isInternalRequest(req);
    removeMarker(req);
    if (internal) return next();
    return middleware(req, res, next);
  };
}
