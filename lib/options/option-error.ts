import type Joi from 'joi';
import { AgentLoopError } from '../errors';
import { NOT_SHOWN, redacted, redactedArgs } from '../shared/redact';

export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(
        row[j] + 1,
        row[j - 1] + 1,
        diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return row[b.length];
}

/** A name's words, lower-cased: `maxTurnsPerLoop` is max, turns, per, loop; `listTTLSec` is list, ttl, sec. */
const wordsOf = (name: string): string[] =>
  name
    .split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

/** The same word, or the same with one letter off (`turn`, `turns`); a short word only as itself. */
const sameWord = (a: string, b: string): boolean =>
  a === b || (Math.min(a.length, b.length) >= 4 && distance(a, b) <= 1);

/**
 * The most words two names share in order with none swapped for another (between two shared words, or before the
 * first or after the last, leftover words on one side only: one name adds or leaves out words, it does not replace).
 */
function sharedInOrder(a: string[], b: string[]): number {
  const best = (i: number, j: number, gapA: boolean, gapB: boolean): number => {
    if (gapA && gapB) return -Infinity;
    if (i === a.length && j === b.length) return 0;
    const matched = i < a.length && j < b.length && sameWord(a[i], b[j]) ? 1 + best(i + 1, j + 1, false, false) : -1;
    const skipA = i < a.length ? best(i + 1, j, true, gapB) : -Infinity;
    const skipB = j < b.length ? best(i, j + 1, gapA, true) : -Infinity;
    return Math.max(matched, skipA, skipB);
  };
  return best(0, 0, false, false);
}

/**
 * A known name that keeps the key's meaning: two words at least shared in order, none swapped; the one sharing most,
 * then with fewest words left over. `maxTurnsPerLoop` is a binding's `maxTurns` (agentLoop's `defaultMaxTurns`), not
 * `maxTokensPerLoop`, which is closer letter by letter but counts another thing.
 */
function sharingWords(key: string, known: string[]): string | undefined {
  const words = wordsOf(key);
  return known
    .map((name) => {
      const theirs = wordsOf(name);
      const shared = sharedInOrder(words, theirs);
      return { name, shared, left: words.length + theirs.length - 2 * shared };
    })
    .filter(({ shared }) => shared >= 2)
    .sort((x, y) => y.shared - x.shared || x.left - y.left)[0]?.name;
}

function closest(key: string, known: string[]): string | undefined {
  const containing = known.find((name) => name.toLowerCase().includes(key.toLowerCase()));
  if (containing) return containing;
  const sharing = sharingWords(key, known);
  if (sharing) return sharing;
  const best = known.map((name) => ({ name, d: distance(key, name) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}

interface Described {
  keys?: Record<string, Described>;
  items?: Described[];
  matches?: { schema?: Described }[];
}

/** A union's alternatives, each of them; any other schema, itself. */
function alternativesOf(node: Described): Described[] {
  return node.matches ? node.matches.flatMap((match) => (match.schema ? alternativesOf(match.schema) : [])) : [node];
}

/** The keys an object at `path` may have, in any alternative of the unions on the way. */
function knownKeys(described: Described, path: (string | number)[]): string[] {
  let nodes = [described];
  for (const part of path) {
    nodes = nodes
      .flatMap(alternativesOf)
      .flatMap(
        (node) => (typeof part === 'number' ? node.items?.slice(0, 1) : node.keys?.[part] && [node.keys[part]]) ?? [],
      );
  }
  return [...new Set(nodes.flatMap(alternativesOf).flatMap((node) => Object.keys(node.keys ?? {})))];
}

/** joi's complaints, those of every alternative of a union that matched none included. */
function flattened(detail: Joi.ValidationErrorItem): Joi.ValidationErrorItem[] {
  const inner = detail.type.startsWith('alternatives.')
    ? (detail.context?.details as Joi.ValidationErrorItem[] | undefined)
    : undefined;
  return inner ? inner.flatMap(flattened) : [detail];
}

function pathOf(path: (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** Options whose values are secrets: an error message (which lands in logs and CI output) never shows them. */
const SECRET = new Set(['internalSecret', 'headers', 'env', 'clientKeys', 'clientSecret']);

function hidingSecrets(key: string, value: unknown): unknown {
  if (SECRET.has(key) && value !== undefined) return NOT_SHOWN;
  return key === 'args' && Array.isArray(value) ? redactedArgs(value) : value;
}

function show(value: unknown, name?: string): string {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (name !== undefined && SECRET.has(name) && value !== undefined)
    return typeof value === 'string'
      ? `a string of ${value.length} characters (not shown)`
      : `${Array.isArray(value) ? 'an array' : `a ${value === null ? 'null' : typeof value}`} (not shown)`;
  const text = JSON.stringify(value, hidingSecrets);
  if (text === undefined) return String(value);
  const shown = redacted(text);
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, part) => (node as Record<string | number, unknown> | undefined)?.[part], root);
}

/** joi types whose message was written for this package: worth keeping beside the option's hint. */
const CUSTOM_WORDS = /^(rule\.|regex\.|object\.(xor|oxor|with|missing)|string\.pattern|array\.unique)/;

/**
 * The fix: a custom check's own words, else the hint of the innermost option on the path that has one (keyed by
 * `parent.name` or `name`; a field without its own, such as `webSearch.always`, gets its option's), with joi's words in
 * front when the hint is
 * not the option's own, so the message says both what is wrong and what is right.
 */
function hintFor(
  detail: Joi.ValidationErrorItem,
  path: (string | number)[],
  hints: ReadonlyMap<string, string>,
): string {
  if (detail.type === 'any.custom') return (detail.context?.error as Error).message;
  const names = path.filter((part): part is string => typeof part === 'string').reverse();
  const keys = names.flatMap((name, i) => (i + 1 < names.length ? [`${names[i + 1]}.${name}`, name] : [name]));
  const owner = keys.find((key) => hints.has(key));
  const own = detail.message.replace(/^"[^"]*":? /, '');
  if (owner === undefined) return own;
  const ownHint = owner === names[0] || owner === keys[0];
  if (detail.type === 'any.required' || (ownHint && !CUSTOM_WORDS.test(detail.type))) return hints.get(owner)!;
  return `${own}; ${hints.get(owner)}`;
}

/**
 * Validates `value`, else throws the coded error for joi's first complaint, a misspelt option first: `hierachy`
 * explains why `hierarchy` is missing, not the reverse.
 */
export function validated<T>(
  schema: Joi.Schema,
  value: unknown,
  hints: ReadonlyMap<string, string>,
  component = 'agentLoop',
): T {
  const { error, value: valid } = schema.validate(value, { abortEarly: true, convert: false });
  if (!error) return valid as T;
  const all =
    error.details[0].type === 'object.unknown'
      ? undefined
      : schema.validate(value, { abortEarly: false, convert: false }).error;
  // A key no alternative of a union knows (`listTTLSec` in trellis.mcp) is misspelt too; one that another
  // alternative knows (`forwardHeaders` beside `command`) is a bad value of the union, said below.
  const described = schema.describe() as Described;
  const misspelt = all?.details
    .flatMap(flattened)
    .find(
      (detail) =>
        detail.type === 'object.unknown' &&
        !knownKeys(described, detail.path.slice(0, -1)).includes(String(detail.path.at(-1))),
    );
  throw optionError(error, schema, hints, component, misspelt);
}

/** Of complaints, the one deeper than every other, if one is. */
function deepestAlone(items: Joi.ValidationErrorItem[]): Joi.ValidationErrorItem | undefined {
  const depth = Math.max(...items.map((item) => item.path.length));
  const deepest = items.filter((item) => item.path.length === depth);
  return deepest.length === 1 ? deepest[0] : undefined;
}

/**
 * A union none of whose alternatives matched, where one complaint lies inside it deeper than any other: the value
 * had that alternative's shape, so that complaint is the fix, not the union's list of shapes. A complaint about a
 * value first (`trellis.mcp.url` without a scheme); else a key missing deeper than any other key is missing or
 * unknown (an `oauth` without its `redirectUrl`, where the other alternative misses `command` and knows no `oauth`).
 */
function deepestOf(detail: Joi.ValidationErrorItem): Joi.ValidationErrorItem {
  if (!detail.type.startsWith('alternatives.')) return detail;
  const inner = flattened(detail).filter((item) => item.path.length > detail.path.length);
  const values = inner.filter((item) => !['any.required', 'object.unknown'].includes(item.type));
  if (values.length > 0) return deepestAlone(values) ?? detail;
  const missing = deepestAlone(inner);
  return missing?.type === 'any.required' ? missing : detail;
}

/**
 * Where the bad value is: a list unique by a key (bindings by `name`) with a repeat, that key's at the repeat; a key
 * that lacks the peer it goes with (`clientSecret` without `clientId`) or has one it excludes, that key's.
 */
function pathOfValue(detail: Joi.ValidationErrorItem): (string | number)[] {
  if (detail.type === 'object.unknown') return detail.path.slice(0, -1);
  if (detail.type === 'object.with') return [...detail.path, String(detail.context?.main)];
  if (detail.type === 'object.oxor')
    return [...detail.path, ...((detail.context?.present as string[]) ?? []).slice(-1)];
  return detail.type === 'array.unique' && typeof detail.context?.path === 'string'
    ? [...detail.path, detail.context.path]
    : detail.path;
}

/** A key no option has: named, with the closest known one as a guess, and the keys known there. */
export function unknownOption(component: string, path: (string | number)[], known: string[]): AgentLoopError {
  const guess = closest(String(path[path.length - 1]), known);
  return new AgentLoopError(
    'ERR_AGENT_LOOP_UNKNOWN_OPTION',
    `${component}: unknown option '${pathOf(path)}'.${guess ? ` Did you mean \`${guess}\`?` : ''} Known options here: ${known.join(', ')}.`,
  );
}

/** Turns joi's complaint into a coded error naming the option, the bad value and the fix. */
function optionError(
  error: Joi.ValidationError,
  schema: Joi.Schema,
  hints: ReadonlyMap<string, string>,
  component = 'agentLoop',
  first = error.details[0],
): AgentLoopError {
  const detail = deepestOf(first);
  const unknownKey = detail.type === 'object.unknown';
  // A custom check that knows the keys itself (a hierarchy node) says them; joi's description does not reach there.
  const known = unknownKey
    ? ((detail.context?.known as string[] | undefined) ??
      knownKeys(schema.describe() as Described, detail.path.slice(0, -1)))
    : [];
  if (known.length > 0) return unknownOption(component, detail.path, known);
  // An unknown key inside a union (e.g. a binding's `match`) is a bad value of the option that holds it.
  const path = pathOfValue(detail);
  const code = detail.type.startsWith('number.') ? 'ERR_AGENT_LOOP_OUT_OF_RANGE' : 'ERR_AGENT_LOOP_INVALID_OPTION';
  return new AgentLoopError(
    code,
    `${component}: option '${pathOf(path) || '(options)'}' is ${show(
      valueAt(error._original, path),
      path.find((part): part is string => typeof part === 'string' && SECRET.has(part)),
    )}; ${hintFor(detail, path, hints)}.`,
  );
}
