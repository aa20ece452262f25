/** Past this many answered approvals still open, the oldest is forgotten first. */
const MAX_REMEMBERED = 100_000;

/**
 * The approvals already answered, each remembered until its token could no longer open anyway, so that an answer sent
 * twice (a replayed follow-up) decides nothing the second time. In this process only: a cluster without sticky
 * sessions catches a replay only on the process that saw the first answer.
 */
export class ApprovalLedger {
  private readonly answered = new Map<string, number>();

  constructor(private readonly ttlSec: number) {}

  /** true the first time `token` is answered; false for every later time while it could still open */
  answer(token: string): boolean {
    const now = Date.now();
    this.forgetExpired(now);
    if (this.answered.has(token)) return false;
    if (this.answered.size >= MAX_REMEMBERED) this.answered.delete(this.answered.keys().next().value as string);
    this.answered.set(token, now + this.ttlSec * 1000);
    return true;
  }

  private forgetExpired(now: number): void {
    for (const [token, until] of this.answered) {
      if (until > now) return;
      this.answered.delete(token);
    }
  }
}
