import { AgentLoopError } from '../errors';

/** Where a pattern matched the end of a path: the index its part begins at, and its named parameters' values. */
export interface RouteMatch {
  at: number;
  params: Readonly<Record<string, string>>;
}

/** A route pattern, compiled once. */
export interface RoutePattern {
  /** as written, e.g. `/models/{model}:generateContent` */
  readonly source: string;
  /** the pattern as a regular expression's source, anchored at neither end (parameters as named groups) */
  readonly expression: string;
  /** where this pattern matches the end of `path` (whatever comes before it: a gateway mounts wires anywhere) */
  match(path: string): RouteMatch | undefined;
}

/**
 * One token of a segment: `{name}`, `*`, or a run of characters that stand for themselves (RFC 3986's `pchar`, but
 * `*` and percent-encodings).
 */
const TOKEN = /\{([A-Za-z_]\w*)\}|(\*)|([\w\-.~!$&'()+,;=:@]+)/y;
/** one segment's part: never a `/` */
const VALUE = '[^/]+';

/** One segment's regular expression, its parameters' names joining `names`; a string: what is wrong with it. */
function segmentOf(segment: string, names: string[]): { expression: string } | string {
  if (segment === '' || segment === '.' || segment === '..') return `it has an empty or dot segment '${segment}'`;
  let expression = '';
  let after: 'literal' | 'parameter' | undefined;
  for (TOKEN.lastIndex = 0; TOKEN.lastIndex < segment.length;) {
    const at = TOKEN.lastIndex;
    const [, name, star, literal] = TOKEN.exec(segment) ?? [];
    if (literal !== undefined) {
      expression += literal.replace(/[.$()+]/g, '\\$&');
      after = 'literal';
      continue;
    }
    if (name === undefined && star === undefined)
      return `'${segment[at]}' in '${segment}' is neither a path character nor a {name} parameter`;
    if (after === 'parameter') return `two parameters meet in '${segment}' (where would one end?)`;
    if (name !== undefined && names.includes(name)) return `it names the parameter {${name}} twice`;
    if (name !== undefined) names.push(name);
    expression += name === undefined ? VALUE : `(?<${name}>${VALUE})`;
    after = 'parameter';
  }
  return { expression };
}

/** What is wrong with `source` as a route pattern; undefined: nothing. */
export function routeProblem(source: string): string | undefined {
  const compiled = compile(source);
  return typeof compiled === 'string' ? compiled : undefined;
}

function compile(source: string): string | { expression: string } {
  if (!source.startsWith('/')) return 'it does not start with /';
  const names: string[] = [];
  let expression = '';
  for (const segment of source.slice(1).split('/')) {
    const compiled = segmentOf(segment, names);
    if (typeof compiled === 'string') return compiled;
    expression += `/${compiled.expression}`;
  }
  return { expression };
}

/**
 * The route pattern `source`: `/`-separated segments of literal characters (a `:` among them, as in Gemini's
 * `/models/{model}:generateContent`), `{name}` for a named parameter and `*` for an unnamed one, each one
 * segment's part (never a `/`), two never side by side. A bad pattern throws `ERR_AGENT_LOOP_BAD_ROUTE`.
 */
export function routePattern(source: string): RoutePattern {
  const compiled = compile(source);
  if (typeof compiled === 'string') {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_BAD_ROUTE',
      `the route pattern ${JSON.stringify(source)} is not one: ${compiled}; write it as /segments of path ` +
        "characters with {name} parameters, e.g. '/models/{model}:generateContent'",
    );
  }
  const { expression } = compiled;
  const regex = new RegExp(`${expression}$`);
  return {
    source,
    expression,
    match(path) {
      const found = regex.exec(path);
      return found ? { at: found.index, params: { ...found.groups } } : undefined;
    },
  };
}
