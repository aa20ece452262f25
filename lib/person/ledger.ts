import { createHash } from 'node:crypto';
import type { Store } from '../store/store';

/**
 * What recording an answer found: the first answer, one already given, or no record possible now (the store is away).
 */
export type Recorded = 'first' | 'again' | 'unrecorded';

/**
 * The approvals already answered, each remembered in the store until its token could no longer open anyway, so that
 * an answer sent twice (a replayed follow-up) decides nothing the second time: on any replica of a fleet that shares
 * a store. The store holds a digest of the token, never the token.
 */
export class ApprovalLedger {
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
