import type Joi from 'joi';

export interface Described {
  keys?: Record<string, Described>;
  items?: Described[];
  matches?: { schema?: Described }[];
}

/** A union's alternatives, each of them; any other schema, itself. */
function alternativesOf(node: Described): Described[] {
  return node.matches ? node.matches.flatMap((match) => (match.schema ? alternativesOf(match.schema) : [])) : [node];
}

/** The keys an object at `path` may have, in any alternative of the unions on the way. */
export function knownKeys(described: Described, path: (string | number)[]): string[] {
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
export function flattened(detail: Joi.ValidationErrorItem): Joi.ValidationErrorItem[] {
  const inner = detail.type.startsWith('alternatives.')
    ? (detail.context?.details as Joi.ValidationErrorItem[] | undefined)
    : undefined;
  return inner ? inner.flatMap(flattened) : [detail];
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
export function deepestOf(detail: Joi.ValidationErrorItem): Joi.ValidationErrorItem {
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
export function pathOfValue(detail: Joi.ValidationErrorItem): (string | number)[] {
  if (detail.type === 'object.unknown') return detail.path.slice(0, -1);
  if (detail.type === 'object.with') return [...detail.path, String(detail.context?.main)];
  if (detail.type === 'object.oxor')
    return [...detail.path, ...((detail.context?.present as string[]) ?? []).slice(-1)];
  return detail.type === 'array.unique' && typeof detail.context?.path === 'string'
    ? [...detail.path, detail.context.path]
    : detail.path;
}
