import type Joi from 'joi';
import { AgentLoopError } from '../errors';
import { closest } from './closest-name';
import { deepestOf, flattened, knownKeys, pathOfValue, type Described } from './joi-complaint';
import { SECRET, show, valueAt } from './shown-value';

function pathOf(path: (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
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

/** A key no option has: named, with the closest known one as a guess, and the keys known there. */
export function unknownOption(component: string, path: (string | number)[], known: string[]): AgentLoopError {
  const guess = closest(String(path[path.length - 1]), known);
  return new AgentLoopError(
    'ERR_AGENT_LOOP_UNKNOWN_OPTION',
    `${component}: unknown option '${pathOf(path)}'.${guess ? ` Did you mean \`${guess}\`?` : ''} ` +
      `Known options here: ${known.join(', ')}.`,
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
