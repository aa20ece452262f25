/** A tool's progress reaches a quiet stream at most this often. */
const PROGRESS_INTERVAL_MS = 1000;

/**
 * What keeps a quiet event stream open through proxies while tools run: a beat (a comment, or the wire's own
 * `ping`) every `everySec` without a write, and one on a tool's progress, at most once a second.
 */
export class KeepAlive {
  private timer?: NodeJS.Timeout;
  private lastProgressAt = 0;

  constructor(
    private readonly everySec: number,
    private readonly beat: () => void,
  ) {}

  /** tools run: from now on the stream may go quiet */
  start(): void {
    this.timer ??= setInterval(this.beat, this.everySec * 1000);
  }

  progress(): void {
    const now = Date.now();
    if (now - this.lastProgressAt < PROGRESS_INTERVAL_MS) return;
    this.lastProgressAt = now;
    this.beat();
  }

  /** something went out: the next beat waits a whole interval again */
  wrote(): void {
    this.timer?.refresh();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
