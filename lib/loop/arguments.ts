import type { ToolOutcome } from '../tool-outcome';

/** The model's arguments as a plain object, or the `invalid` outcome saying why they are none. */
export type ParsedArguments = { arguments: Record<string, unknown> } | { invalid: ToolOutcome };

/** The model's JSON arguments as a plain object; `__proto__` keys are dropped so they never land on a prototype. */
export function parseArguments(tool: string, raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { arguments: {} };
  if (typeof raw !== 'string') return { invalid: { kind: 'invalid', tool, why: 'arguments_not_string' } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw, (key, value) => (key === '__proto__' ? undefined : value));
  } catch (error) {
    return { invalid: { kind: 'invalid', tool, why: 'arguments_not_json', error: (error as Error).message } };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { invalid: { kind: 'invalid', tool, why: 'arguments_not_object', got: parsed } };
  return { arguments: parsed as Record<string, unknown> };
}
