import type { Store } from '../store/store';
import type { Logger } from '../types';

/** Past this many answers remembered, the oldest is forgotten first. */
const MAX_REMEMBERED = 100_000;
/** The loop's own answer ids (`resp_` and its 16-hex loop id): only these are looked for in the store. */
const LOOP_ANSWER_ID = /^resp_[0-9a-f]{16}$/;
const PREFIX = 'answer:';

/** Where a fleet keeps the answer ids, and for how long (a follow-up chains within the continuations' lifetime). */
export interface SharedAnswerIds {
  store: Store;
  ttlMs: number;
  logger: Logger;
}

/**
 * The upstream's id behind each of the loop's answer ids. A streamed answer names its id before its last turn has
 * one, so the client gets the loop's own id, always; a follow-up that chains on it (`previous_response_id`) is
 * chained on the upstream's last reply of that loop, which holds the whole conversation. Kept in this process; with
 * a store, also in the store (written before the answer goes out), so that a follow-up sent to any replica of a
 * fleet chains on the same reply.
 */
export class AnswerIds {
  private readonly upstream = new Map<string, string>();
  /** the other way: each upstream reply ends one loop, so it has one answer id */
  private readonly answer = new Map<string, string>();

  constructor(private readonly shared?: SharedAnswerIds) {}

  /** with a store, resolves once the store holds it too (or could not: the answer goes out all the same) */
  remember(answerId: string, upstreamId: string): Promise<void> | undefined {
    if (upstreamId === '') return undefined;
    this.keep(answerId, upstreamId);
    const shared = this.shared;
    return shared?.store.set(PREFIX + answerId, upstreamId, { ttlMs: shared.ttlMs }).then(
      () => undefined,
      (error: Error) => {
        shared.logger.warn('agent-loop could not share an answer id; a follow-up chains on it on this replica only', {
          answerId,
          reason: error.message,
        });
      },
    );
  }

  /**
   * With a store, for one of the loop's answer ids this process does not know: resolves once what the store holds
   * for it is known here (never rejects; a store away leaves the id as it is). Else undefined: nothing to wait for.
   */
  load(id: string | undefined): Promise<void> | undefined {
    const shared = this.shared;
    if (!shared || id === undefined || this.upstream.has(id) || !LOOP_ANSWER_ID.test(id)) return undefined;
    return shared.store.get(PREFIX + id).then(
      (upstreamId) => void (upstreamId && this.keep(id, upstreamId)),
      () => undefined,
    );
  }

  /** the upstream's id for one of the loop's answer ids; any other id as it is */
  upstreamOf(id: string): string {
    return this.upstream.get(id) ?? id;
  }

  /** the loop's answer id whose upstream reply is `upstreamId` (what a follow-up chained on); any other id as it is */
  answerOf(upstreamId: string): string {
    return this.answer.get(upstreamId) ?? upstreamId;
  }

  private keep(answerId: string, upstreamId: string): void {
    this.forget(answerId);
    if (this.upstream.size >= MAX_REMEMBERED) this.forget(this.upstream.keys().next().value as string);
    this.upstream.set(answerId, upstreamId);
    this.answer.set(upstreamId, answerId);
  }

  private forget(answerId: string): void {
    const upstreamId = this.upstream.get(answerId);
    if (upstreamId === undefined) return;
    this.upstream.delete(answerId);
    this.answer.delete(upstreamId);
  }
}
