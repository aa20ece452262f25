import { canonicalJson } from '../shared/canonical-json';
import type { ToolOutcome } from './tool-outcome';

/**
 * The doom-loop guard: one loop runs the same tool with the same arguments at most `max` times. Only this loop's
 * calls count (the client's history does not), and a refused call does not count again.
 */
export class RepeatedCalls {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts the call, or returns the `repeated` outcome instead of a run once it was made `max` times. */
  refusal(tool: string, args: Record<string, unknown>): ToolOutcome | undefined {
    const key = `${tool}\n${canonicalJson(args)}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return { kind: 'repeated', tool, count };
    this.counts.set(key, count + 1);
    return undefined;
  }
}
