import { isObject, type Fields } from './fields';

/**
 * A streamed reply names at most this many entries of one list (tool calls, `reasoning_details`): far more calls
 * than the loop runs in a turn (`maxToolCallsPerTurn` is at most 64), and an index past it fails the turn.
 */
export const MAX_STREAMED_ENTRIES = 256;

export function excerpt(data: string): string {
  return data.length > 80 ? `${data.slice(0, 77)}...` : data;
}

/** A list entry's `index`: a small non-negative integer, or the turn fails (a huge one would make a sparse list). */
export function entryIndex(index: unknown, what: string): number {
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < MAX_STREAMED_ENTRIES) return index;
  throw new Error(
    `the model stream sent ${what} with an index out of range (0 to ${MAX_STREAMED_ENTRIES - 1}): ` +
      `${excerpt(String(JSON.stringify(index)))}`,
  );
}

// Fields that name what a delta adds to rather than add to it: servers that repeat them on every delta (ids on
// every tool call delta, `format` on every reasoning detail) would otherwise see them doubled.
const NAMING = new Set(['id', 'index', 'type', 'name', 'format', 'signature']);

function mergeList(into: unknown[], delta: unknown[], key: string): void {
  for (const entry of delta) {
    if (isObject(entry) && entry.index !== undefined) {
      const index = entryIndex(entry.index, `a '${key}' entry`);
      const known = into.find((candidate) => isObject(candidate) && candidate.index === index);
      if (known) {
        mergeDelta(known as Fields, entry);
        continue;
      }
    }
    if (into.length >= MAX_STREAMED_ENTRIES)
      throw new Error(`the model stream sent more than ${MAX_STREAMED_ENTRIES} '${key}' entries`);
    into.push(fresh(entry, key));
  }
}

function fresh(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    mergeList(list, value, key);
    return list;
  }
  if (!isObject(value)) return value;
  const fields: Fields = {};
  mergeDelta(fields, value);
  return fields;
}

/**
 * What one streamed delta adds to the message it merges into: its strings' bytes, any other value's text; naming
 * fields (set once, however many deltas repeat them) and the keys are not counted.
 */
export function deltaBytes(delta: unknown, key = ''): number {
  if (NAMING.has(key)) return 0;
  if (typeof delta === 'string') return Buffer.byteLength(delta);
  let sum = 0;
  if (Array.isArray(delta)) for (const entry of delta) sum += deltaBytes(entry, key);
  else if (isObject(delta)) for (const name of Object.keys(delta)) sum += deltaBytes(delta[name], name);
  else return delta === undefined || delta === null ? 0 : String(delta).length;
  return sum;
}

/**
 * Adds one streamed delta's fields to what came before, by OpenAI's delta convention: strings are concatenated,
 * objects merged, lists of objects merged by their own `index` (others appended); other values replace. Naming
 * fields are set once; a `null` adds nothing to a value; `__proto__` is never set.
 */
export function mergeDelta(into: Fields, delta: Fields): void {
  for (const [key, value] of Object.entries(delta)) {
    if (key === '__proto__' || value === undefined) continue;
    const had = into[key];
    if (had === undefined || had === null || (had === '' && NAMING.has(key))) into[key] = fresh(value, key);
    else if (value === null) continue;
    else if (typeof had === 'string' && typeof value === 'string') into[key] = NAMING.has(key) ? had : had + value;
    else if (isObject(had) && isObject(value)) mergeDelta(had, value);
    else if (Array.isArray(had) && Array.isArray(value)) mergeList(had, value, key);
    else into[key] = fresh(value, key);
  }
}
