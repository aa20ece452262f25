import type { ToolOutcome } from '../tool-outcome';

/** The model's arguments as a plain object, or the `invalid` outcome saying why they are none. */
export type ParsedArguments = { arguments: Record<string, unknown> } | { invalid: ToolOutcome };

const PROTO = '__proto__';

/** `value` (parsed JSON) without its `__proto__` keys, at any depth: what a reviver dropping them leaves, without its call per value. */
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

function asObject(tool: string, parsed: unknown): ParsedArguments {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { invalid: { kind: 'invalid', tool, why: 'arguments_not_object', got: parsed } };
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
