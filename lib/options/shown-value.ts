import { NOT_SHOWN, redacted, redactedArgs } from '../shared/redact';

/** Options whose values are secrets: an error message (which lands in logs and CI output) never shows them. */
export const SECRET = new Set(['internalSecret', 'headers', 'env', 'clientKeys', 'clientSecret']);

function hidingSecrets(key: string, value: unknown): unknown {
  if (SECRET.has(key) && value !== undefined) return NOT_SHOWN;
  return key === 'args' && Array.isArray(value) ? redactedArgs(value) : value;
}

export function show(value: unknown, name?: string): string {
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

export function valueAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, part) => (node as Record<string | number, unknown> | undefined)?.[part], root);
}
