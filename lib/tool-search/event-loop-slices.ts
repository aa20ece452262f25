import { setImmediate as nextTurn } from 'node:timers/promises';

/** A long piece of work hands the event loop back once it has run this long: other requests wait no longer. */
export const SLICE_MS = 10;

/** Cuts a long piece of work into slices of about SLICE_MS, each step of it short: `between` goes between steps. */
export class EventLoopSlices {
  private since = performance.now();

  async between(): Promise<void> {
    if (performance.now() - this.since <= SLICE_MS) return;
    await nextTurn();
    this.since = performance.now();
  }
}
