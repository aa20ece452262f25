import type { IncomingMessage } from 'node:http';
import { clientIdentity } from '../shared/client-identity';
import { open, seal, type Opened, type Purpose } from '../shared/signed-token';
import type { AnswerIds } from './answer-ids';

/** Where a hand-back's token is sealed and opened: for this binding and this client only. */
export interface HandBacks {
  continuations: Continuations;
  req: IncomingMessage;
  binding: string;
}

/**
 * What a follow-up gets back: the work its hand-backs' tokens carry, the upstream's reply its chained answer id stands
 * for.
 */
export interface FollowUp extends HandBacks {
  answerIds: AnswerIds;
}

/**
 * One loop's hand-backs: its token carries the tools that ran well so far, and those a tool search loaded, with the
 * work.
 */
export interface LoopHandBacks extends HandBacks {
  succeeded: ReadonlySet<string>;
  /** a live list, in the order they were loaded: it grows as the loop searches */
  loaded: readonly string[];
}

/** Between the model's own call id and the token: `<call id>.al1.<sealed token>`. */
export const TAG = '.al1.';
/** A token is at most this long: it travels twice in the follow-up (call id, tool_call_id). */
export const MAX_CONTINUATION_CHARS = 16 * 1024;
/** What one loop's record may unpack to; a follow-up gets back at most this much work, all its tokens together. */
export const MAX_WORK_BYTES = 1024 * 1024;

/**
 * What a hand-back's token holds: the loop's work (in its wire's shape), and the tools that ran well so far (an `ok`
 * outcome), which unlock their children in the follow-up. The work's text cannot tell: a good result may begin with
 * `tool error:` or `⛔`, and a failed one, elided to fit the token, reads as neither.
 */
export interface SealedWork<T = unknown> {
  work: T[];
  succeeded: string[];
  /**
   * the tools a tool search loaded, in the order it did: the follow-up offers them from its first turn (absent: none)
   */
  loaded?: string[];
}

/** What a hand-back's token carries beside the work. */
export interface Carried {
  succeeded: Iterable<string>;
  loaded: readonly string[];
}

/** What a follow-up's tokens gave back, beside the work itself. */
export interface Reopened {
  /** the tools the verified tokens say ran well (what the loop's earlier turns did, not what the client says) */
  succeeded: string[];
  /** tokens that did not open (forged, tampered, expired, another binding's or another client's): work not restored */
  forged: number;
  /** tokens left unopened: repeats, tokens where none belongs, or past the follow-up's bound of work */
  ignored: number;
  /** the tools the verified tokens say a tool search loaded, in order: offered again from the follow-up's first turn */
  loaded: string[];
}

/**
 * What a follow-up's verified continuations say the loops before it did: the tools that ran well, those a search
 * loaded.
 */
export type EarlierWork = Pick<Reopened, 'succeeded' | 'loaded'>;

/** A request that follows no hand-back: no earlier work. */
export const NOTHING_EARLIER: EarlierWork = { succeeded: [], loaded: [] };

const isNames = (list: unknown): list is string[] =>
  Array.isArray(list) && list.every((name) => typeof name === 'string');

/** An authentic token is ours; one of another shape was sealed by an older version of the loop: not restored. */
function sealedWorkOf(opened: Opened<unknown>): Opened<SealedWork> {
  if (!('payload' in opened)) return opened;
  const { work, succeeded, loaded = [] } = (opened.payload ?? {}) as Partial<SealedWork>;
  if (!Array.isArray(work) || !isNames(succeeded) || !isNames(loaded)) return { failed: 'invalid' };
  return { payload: { work, succeeded, loaded }, bytes: opened.bytes };
}

/** A token is bound to the binding that wrote it, to the model's call id that carries it and to the client. */
const purpose = (req: IncomingMessage, binding: string, callId: string): Purpose => ({
  kind: 'continuation',
  context: `${binding}\n${callId}`,
  credential: clientIdentity(req),
});

/** Where the token starts in a call id that carries one; -1: it carries none. */
export const tokenAt = (id: unknown): number => (typeof id === 'string' ? id.indexOf(TAG) : -1);

/**
 * The loop's hand-back token: a sealed record of its earlier turns in the first handed-back call's id, so that the
 * client's follow-up (which sends the id back unchanged) brings them along, for the same binding and client only.
 */
export class Continuations {
  constructor(
    private readonly key: Buffer,
    /** how long a token opens (`continuationTtlSec`) */
    private readonly ttlSec: number,
  ) {}

  /** The token, or `undefined` while it (or the record it unpacks to) is over its bound. */
  sealWork(
    req: IncomingMessage,
    binding: string,
    callId: string,
    work: readonly unknown[],
    { succeeded, loaded }: Carried,
  ): string | undefined {
    const sealed: SealedWork = {
      work: [...work],
      succeeded: [...succeeded],
      ...(loaded.length > 0 ? { loaded: [...loaded] } : {}),
    };
    if (Buffer.byteLength(JSON.stringify(sealed)) > MAX_WORK_BYTES) return undefined;
    const token = seal(this.key, purpose(req, binding, callId), sealed, Date.now() + this.ttlSec * 1000);
    return token.length > MAX_CONTINUATION_CHARS ? undefined : token;
  }

  /** The work the token carries, for this binding and client, at most `maxBytes` of it; else why not. */
  openWork(req: IncomingMessage, binding: string, callId: string, token: string, maxBytes: number): Opened<SealedWork> {
    return sealedWorkOf(open(this.key, purpose(req, binding, callId), token, maxBytes));
  }
}

/**
 * The calls handed back to the client, the first one's id carrying the token of `work` (then `last`, which is never
 * elided). `elide` gives an item of the work with its result cut out (undefined: it holds none): the results are
 * elided, oldest first, until the token fits its bound. Nothing to carry, or nothing that fits: the calls as they are.
 */
export function carryWork<Call extends { id: string }, Item>(
  { continuations, req, binding, succeeded, loaded }: LoopHandBacks,
  calls: Call[],
  work: Item[],
  elide: (item: Item) => Item | undefined,
  last?: Item,
): Call[] {
  const [first, ...rest] = calls;
  if (work.length === 0 || first === undefined || first.id === '') return calls;
  const record = last === undefined ? work : [...work, last];
  const carried = { succeeded: [...succeeded], loaded: [...loaded] };
  let token = continuations.sealWork(req, binding, first.id, record, carried);
  for (let i = 0; token === undefined && i < work.length; i++) {
    const elided = elide(work[i]);
    if (elided === undefined) continue;
    record[i] = elided;
    token = continuations.sealWork(req, binding, first.id, record, carried);
  }
  return token === undefined ? calls : [{ ...first, id: `${first.id}${TAG}${token}` }, ...rest];
}

/**
 * The work each token of a follow-up carries (`ids`: the call ids that carry them, in the order they are to open,
 * the latest first): each token opens once, until `MAX_WORK_BYTES` of work is back; the rest lose their work, not
 * their ids. `works[n]` is the work of `ids[n]`, undefined where it did not open.
 */
export function reopenWork(
  { continuations, req, binding }: HandBacks,
  ids: readonly string[],
): { works: (unknown[] | undefined)[]; reopened: Reopened } {
  const works: (unknown[] | undefined)[] = ids.map(() => undefined);
  const succeeded = new Set<string>();
  const loaded = new Set<string>();
  const seen = new Set<string>();
  let budget = MAX_WORK_BYTES;
  let forged = 0;
  let ignored = 0;
  ids.forEach((id, n) => {
    const at = tokenAt(id);
    if (seen.has(id) || budget === 0 || id.length - at - TAG.length > MAX_CONTINUATION_CHARS) {
      ignored++;
      return;
    }
    seen.add(id);
    const opened = continuations.openWork(req, binding, id.slice(0, at), id.slice(at + TAG.length), budget);
    if ('payload' in opened) {
      works[n] = opened.payload.work;
      for (const tool of opened.payload.succeeded) succeeded.add(tool);
      for (const tool of opened.payload.loaded ?? []) loaded.add(tool);
      budget -= opened.bytes;
    } else if ('failed' in opened && opened.failed === 'too large') {
      budget = 0;
      ignored++;
    } else forged++;
  });
  return { works, reopened: { succeeded: [...succeeded], forged, ignored, loaded: [...loaded] } };
}

/** What a follow-up's items carry: per item the id holding a token (undefined for none), and each carrier's work. */
export interface CarriedWork<T> {
  carriers: (string | undefined)[];
  workAt: Map<number, T[] | undefined>;
  reopened: Reopened;
}

/**
 * The work of every item whose id (`idOf`) carries a token, by the item's index, in the items' order; undefined when
 * none carries one.
 */
export function reopenCarried<T>(
  handBacks: HandBacks,
  items: readonly T[],
  idOf: (item: T) => unknown,
): CarriedWork<T> | undefined {
  const carriers = items.map((item) => {
    const id = idOf(item);
    return tokenAt(id) >= 0 ? (id as string) : undefined;
  });
  const at = carriers.flatMap((id, i) => (id === undefined ? [] : [i]));
  if (at.length === 0) return undefined;
  const { works, reopened } = reopenWork(
    handBacks,
    at.map((i) => carriers[i] as string),
  );
  return { carriers, workAt: new Map(at.map((i, n) => [i, works[n] as T[] | undefined])), reopened };
}
