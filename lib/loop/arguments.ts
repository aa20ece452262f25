/** The model's JSON arguments as a plain object; `__proto__` keys are dropped so they never land on a prototype. */
export function parseArguments(tool: string, raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return {};
  if (typeof raw !== 'string') return `tool error: arguments for '${tool}' must be a JSON object encoded as a string`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw, (key, value) => (key === '__proto__' ? undefined : value));
  } catch (error) {
    return `tool error: arguments for '${tool}' are not valid JSON (${(error as Error).message})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return `tool error: arguments for '${tool}' must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`;
  }
  return parsed as Record<string, unknown>;
}
