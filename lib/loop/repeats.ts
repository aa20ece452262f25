/** JSON with every object's keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same arguments. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    const fields = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The doom-loop guard: one loop runs the same tool with the same arguments at most `max` times. Only this loop's
 * calls count (the client's history does not), and a refused call does not count again.
 */
export class RepeatedCalls {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts the call, or returns the text the model reads instead of a run once it was made `max` times. */
  refusal(tool: string, args: Record<string, unknown>): string | undefined {
    const key = `${tool}\n${canonicalJson(args)}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) {
      return `tool error: '${tool}' was already called with these arguments ${count} times; use the earlier result or change the arguments`;
    }
    this.counts.set(key, count + 1);
    return undefined;
  }
}
