import type { ToolOutcome } from './tool-outcome';

/** The model's arguments as a plain object, or the `invalid` outcome saying why they are none. */
export type ParsedArguments = { arguments: Record<string, unknown> } | { invalid: ToolOutcome };

const PROTO = '__proto__';

/**
 * `value` (parsed JSON) without its `__proto__` keys, at any depth: what a reviver dropping them leaves, without its
 * call per value.
 */
function withoutProto(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) value.forEach(withoutProto);
  else {
    const fields = value as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (key === PROTO) delete fields[key];
      else withoutProto(fields[key]);
    }
  }
  return value;
}

/** A fresh copy of `value` (parsed JSON) as serialising and parsing it again gives: no `__proto__` keys, no -0. */
function copied(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(copied);
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) if (key !== PROTO) copy[key] = copied(entry);
  return copy;
}

function asObject(tool: string, parsed: unknown): ParsedArguments {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { invalid: { kind: 'invalid', tool, why: 'arguments_not_object', got: parsed } };
  return { arguments: parsed as Record<string, unknown> };
}

/** The model's JSON arguments as a plain object; `__proto__` keys are dropped so they never land on a prototype. */
export function parseArguments(tool: string, raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { arguments: {} };
  if (typeof raw !== 'string') return { invalid: { kind: 'invalid', tool, why: 'arguments_not_string' } };
  let parsed: unknown;
  try {
    parsed = withoutProto(JSON.parse(raw));
  } catch (error) {
    return { invalid: { kind: 'invalid', tool, why: 'arguments_not_json', error: (error as Error).message } };
  }
  return asObject(tool, parsed);
}

const inputs = new WeakMap<object, unknown>();

/** `call`, its `arguments` serialised from `input` (Messages' parsed `input` object), which `callArguments` copies. */
export function withInput<Call extends object>(call: Call, input: unknown): Call {
  inputs.set(call, input);
  return call;
}

/**
 * A call's arguments as `parseArguments` reads them; from the wire's parsed `input` when it has one, not parsed again.
 */
export function callArguments(tool: string, call: { arguments: unknown }): ParsedArguments {
  const input = inputs.get(call);
  return input === undefined ? parseArguments(tool, call.arguments) : asObject(tool, copied(input));
}
