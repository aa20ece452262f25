import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { sign, verify, type Purpose } from '../shared/signed-token';

export const INTERNAL_HEADER = 'x-mcp-internal';

const VERDICT = Symbol('agent-loop.internal-verdict');
const MARKER: Purpose = { kind: 'marker' };
/** Longer than any marker the loop signs: a longer value is not read. */
const MAX_MARKER_CHARS = 200;

/** The marker as the request brought it (it stays when the header is removed), and the verdict under each key asked. */
interface Memo {
  value: unknown;
  verdicts: Map<Buffer, MarkerVerdict>;
}
type Marked = IncomingMessage & { [VERDICT]?: Memo };
export type MarkerVerdict = 'internal' | 'external' | 'forged';

// Every turn of a loop carries the loop's marker, so it is verified once: later turns find it here until it expires.
// Only a marker that verified, or that this process signed, is ever stored, so a lookup can only succeed for a string
// that would verify anyway. Each entry keeps its secret: a marker of one agentLoop is no proof to another with its own.
const MAX_VERIFIED = 4_096;
const verified = new Map<string, { expiresAt: number; secret: Buffer }>();

function remember(marker: string, expiresAt: number, secret: Buffer): void {
  const now = Date.now();
  for (const [oldest, entry] of verified) {
    if (entry.expiresAt > now && verified.size < MAX_VERIFIED) break;
    verified.delete(oldest);
  }
  verified.set(marker, { expiresAt, secret });
}

/**
 * The loop's id signed under the agentLoop's secret: unforgeable without it, useless after the loop's deadline.
 * Signed here, it is known to verify: the loop's turns into this process cost no HMAC (a turn that another process
 * sharing the secret takes verifies it once there).
 */
export function signMarker(secret: Buffer, loopId: string, expiresAt: number): string {
  const marker = sign(secret, MARKER, loopId, expiresAt);
  remember(marker, expiresAt, secret);
  return marker;
}

function verifies(value: unknown, secret: Buffer): boolean {
  if (typeof value !== 'string' || value.length > MAX_MARKER_CHARS) return false;
  const known = verified.get(value);
  // A marker that verified under one secret verifies under no other (that would take an HMAC collision): one of
  // another agentLoop's turns is not checked again under this one's key on every turn.
  if (known !== undefined) return known.secret.equals(secret) && known.expiresAt > Date.now();
  const checked = verify(secret, MARKER, value);
  if ('failed' in checked) return false;
  remember(value, checked.expiresAt, secret);
  return true;
}

function memoOf(req: IncomingMessage): Memo {
  const marked = req as Marked;
  return (marked[VERDICT] ??= { value: req.headers[INTERNAL_HEADER], verdicts: new Map() });
}

/**
 * Whether `req` is a self-call signed under `key` (one agentLoop's). Verifies the marker once per key and memoises
 * the verdict on the request; the request is left as it is.
 */
export function markerVerdict(req: IncomingMessage, key: Buffer): MarkerVerdict {
  const memo = memoOf(req);
  let verdict = memo.verdicts.get(key);
  if (verdict === undefined) {
    verdict = memo.value === undefined ? 'external' : verifies(memo.value, key) ? 'internal' : 'forged';
    memo.verdicts.set(key, verdict);
  }
  return verdict;
}

/** An Express app as far as it is read here: the app it is mounted in, if any. */
interface MountedApp {
  parent?: MountedApp;
}

// Each top-level Express app keeps the secrets of the agentLoops that serve it or a sub-app mounted in it: a marker is
// proof only to the injectors of the same app, not to another app of the process that has its own internalSecret.
// An agentLoop that has served no request yet signed no marker in this process; a turn under its secret can only come
// from another process sharing it (a cluster worker's first turns), so it is trusted in any app until it serves one.
const servingSecrets = new WeakMap<MountedApp, Set<Buffer>>();
const unservedSecrets = new Map<Buffer, number>();

function topAppOf(req: IncomingMessage): MountedApp | undefined {
  let app = (req as { app?: MountedApp }).app;
  while (app?.parent) app = app.parent;
  return app;
}

/**
 * For an agentLoop signing under `key`: call the function it returns on every request the agentLoop sees, binding its
 * markers to that app.
 */
export function markerTrust(key: Buffer): (req: IncomingMessage) => void {
  let served = false;
  // an app's secrets are kept for good: a request to the app bound last has nothing to add (every turn of a loop)
  let boundLast: MountedApp | undefined;
  unservedSecrets.set(key, (unservedSecrets.get(key) ?? 0) + 1);
  return function servesApp(req) {
    const app = topAppOf(req);
    if (!app || app === boundLast) return;
    boundLast = app;
    if (!served) {
      served = true;
      const unserved = unservedSecrets.get(key)! - 1;
      if (unserved === 0) unservedSecrets.delete(key);
      else unservedSecrets.set(key, unserved);
    }
    const secrets = servingSecrets.get(app);
    if (secrets) secrets.add(key);
    else servingSecrets.set(app, new Set([key]));
  };
}

/**
 * Whether `req` is a turn of an agentLoop serving the same Express app (a sub-app's counts): injectors skip those. Only
 * a question.
 */
export function isInternalRequest(req: IncomingMessage): boolean {
  if (memoOf(req).value === undefined) return false;
  const app = topAppOf(req);
  const serving = app && servingSecrets.get(app);
  if (serving) for (const key of serving) if (markerVerdict(req, key) === 'internal') return true;
  for (const key of unservedSecrets.keys()) if (markerVerdict(req, key) === 'internal') return true;
  return false;
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
