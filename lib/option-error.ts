import type Joi from 'joi';
import { AgentLoopError } from './errors';

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function closest(key: string, known: string[]): string | undefined {
  const containing = known.find((name) => name.toLowerCase().includes(key.toLowerCase()));
  if (containing) return containing;
  const best = known.map((name) => ({ name, d: distance(key, name) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}

interface Described {
  keys?: Record<string, Described>;
  items?: Described[];
}

function knownKeys(described: Described, path: (string | number)[]): string[] {
  let node: Described | undefined = described;
  for (const part of path) node = typeof part === 'number' ? node?.items?.[0] : node?.keys?.[part];
  return Object.keys(node?.keys ?? {});
}

function pathOf(path: (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

function show(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, part) => (node as Record<string | number, unknown> | undefined)?.[part], root);
}

/** Turns joi's first complaint into a coded error naming the option, the bad value and the fix. */
export function optionError(error: Joi.ValidationError, schema: Joi.Schema, hints: ReadonlyMap<string, string>, component = 'agentLoop'): AgentLoopError {
  const detail = error.details[0];
  const unknownKey = detail.type === 'object.unknown';
  const known = unknownKey ? knownKeys(schema.describe() as Described, detail.path.slice(0, -1)) : [];
  if (known.length > 0) {
    const guess = closest(String(detail.path[detail.path.length - 1]), known);
    return new AgentLoopError(
      'ERR_AGENT_LOOP_UNKNOWN_OPTION',
      `${component}: unknown option '${pathOf(detail.path)}'.${guess ? ` Did you mean \`${guess}\`?` : ''} Known options here: ${known.join(', ')}.`,
    );
  }
  // An unknown key inside a union (e.g. a binding's `match`) is a bad value of the option that holds it.
  const path = unknownKey ? detail.path.slice(0, -1) : detail.path;
  const name = String([...path].reverse().find((part) => typeof part === 'string'));
  const code = detail.type.startsWith('number.') ? 'ERR_AGENT_LOOP_OUT_OF_RANGE' : 'ERR_AGENT_LOOP_INVALID_OPTION';
  const hint =
    detail.type === 'any.custom'
      ? `it must be a tool tree: ${(detail.context?.error as Error).message}`
      : (hints.get(name) ?? detail.message.replace(/^"[^"]*" /, ''));
  return new AgentLoopError(code, `${component}: option '${pathOf(path) || '(options)'}' is ${show(valueAt(error._original, path))}; ${hint}.`);
}
