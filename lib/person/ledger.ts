import { createHash } from 'node:crypto';
import type { Store } from '../store/store';

/**
 * What recording an answer found: the first answer, one already given, or no record possible now (the store is away).
 */
export type Recorded = 'first' | 'again' | 'unrecorded';

/**
 * The questions already answered (approvals, a tool's questions: one ledger each), each remembered in the store
 * until its token could no longer open anyway, so that an answer sent twice (a replayed follow-up) decides nothing
 * the second time: on any replica of a fleet that shares a store. The store holds a digest of the token, never the
 * token.
 */
export class AnswerLedger {
  constructor(
    private readonly store: Store,
    private readonly ttlSec: number,
  ) {}

  async answer(token: string): Promise<Recorded> {
    const digest = createHash('sha256').update(token).digest('hex');
    try {
      return (await this.store.set(`approval:${digest}`, '1', { ifAbsent: true, ttlMs: this.ttlSec * 1000 }))
        ? 'first'
        : 'again';
    } catch {
      return 'unrecorded';
    }
  }
}

/** A decision an answer made: the ledger records the token it opened (none: nothing opened, nothing to record). */
interface Recordable {
  outcome: string;
  tool: string;
  callId: string;
  token?: string;
}

/** Why an answer decides nothing: it was given before, or it cannot be recorded now. */
const NOT_RECORDED = {
  again: { refusal: { why: 'already_answered' }, reason: 'already answered' },
  unrecorded: {
    refusal: { why: 'unrecorded' },
    reason: 'the answer could not be recorded (the store is unreachable)',
  },
} as const;

/**
 * The decisions once each answer is recorded in the ledger: an answer given before (on any replica sharing the
 * store) decides nothing, and one that cannot be recorded now is not honoured either, so that nothing runs twice.
 * `kind`: what a refusal carries to say which question it answers (`{ input: true }` for a tool's questions).
 */
export async function recordedDecisions<Decision extends Recordable>(
  ledger: AnswerLedger,
  decisions: readonly Decision[],
  kind: { input?: true } = {},
): Promise<Decision[]> {
  return Promise.all(
    decisions.map(async function recorded(decision): Promise<Decision> {
      if (decision.token === undefined) return decision;
      const { tool, callId } = decision;
      const found = await ledger.answer(decision.token);
      if (found === 'first') return decision;
      return { outcome: 'refused', tool, callId, ...NOT_RECORDED[found], ...kind } as unknown as Decision;
    }),
  );
}
