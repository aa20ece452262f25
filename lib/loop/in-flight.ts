import { setMaxListeners } from 'node:events';
import { settledWithin } from '../shared/signals';

/** The loops running now: counted for `maxConcurrentLoops`, drained by `close()`. */
export class InFlightLoops {
  /** set by `drain()`: no new loop starts */
  closing = false;
  private readonly running = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();

  constructor() {
    // every running loop listens to it: past 10, Node would warn of a leak where there is none
    setMaxListeners(0, this.shutdown.signal);
  }

  get size(): number {
    return this.running.size;
  }

  /** aborted when a drain runs out: every loop still running stops with the `shutdown` note */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** `run` must never reject (the middleware catches every loop's failure). */
  track(run: Promise<void>): void {
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /**
   * Admits no new loop, waits up to `seconds` for the running ones to finish, then ends the rest (each answers
   * with what it has and the shutdown note) and waits for them to send it. Resolves with how many were ended.
   */
  async drain(seconds: number): Promise<number> {
    this.closing = true;
    if (await settledWithin(Promise.all(this.running), seconds * 1000)) return 0;
    const ended = this.running.size;
    this.shutdown.abort(new Error('the gateway is shutting down'));
    await Promise.all(this.running);
    return ended;
  }
}
