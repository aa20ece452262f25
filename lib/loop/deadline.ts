import { onAbort } from '../shared/signals';

/**
 * One wall-clock deadline over every turn of a loop; its signal cuts a running self-call or tool call short.
 * A shutdown whose drain ran out brings it forward: the loop then stops as it would at its deadline, saying why.
 */
export class Deadline {
  readonly expiresAt: number;
  /** why the loop must stop once `expired`: its own budget, or the gateway shutting down */
  stop: 'deadline' | 'shutdown' = 'deadline';
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly unfollow: () => void;
  private readonly onShutdown = () => {
    this.stop = 'shutdown';
    this.controller.abort(new Error('the gateway is shutting down'));
  };

  constructor(
    readonly seconds: number,
    shutdown?: AbortSignal,
  ) {
    this.expiresAt = Date.now() + seconds * 1000;
    this.timer = setTimeout(
      () => this.controller.abort(new Error(`total budget of ${seconds}s ran out`)),
      seconds * 1000,
    );
    this.timer.unref();
    this.unfollow = onAbort(shutdown, this.onShutdown);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.unfollow();
  }
}
