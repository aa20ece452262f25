import Joi from 'joi';
import type { Logger } from '../shared/logger';
import { validated } from './option-error';

/** One row of the option table (docs/options.md), beside the option's path: its range, its default, what it does. */
export interface OptionDoc {
  range: string;
  fallback: string;
  does: string;
}

type Presence = 'optional' | 'required' | 'defaulted';

/**
 * One option, declared once: what it accepts (its default included), the fix an error names, its doc line, and the
 * options inside it (for their hints and doc lines). The type parameters are what a caller gives and what the loop
 * gets once it validated; they exist for the types derived below.
 */
export interface Declared<In = unknown, Out = In, P extends Presence = Presence> {
  readonly schema: Joi.Schema;
  /** the fix an error message gives; a function of the option's name where the example names it */
  readonly hint?: string | ((name: string) => string);
  /** the hint holds only under this parent (`mcp.url`, `approval.tool`): elsewhere an option of that name is another */
  readonly qualified?: boolean;
  readonly doc?: OptionDoc;
  /** the options inside it, by name */
  readonly inner?: Declarations;
  /** `inner` describes each item of a list (a row's path says `bindings[].maxTurns`) */
  readonly list?: boolean;
  /**
   * a run-time tunable: `settings.update()`, the admin API and a SIGHUP reload change it for the loops that start after
   */
  readonly tunable?: true;
  readonly types?: { in: In; out: Out; presence: P };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Declarations = Readonly<Record<string, Declared<any, any, Presence>>>;

type Fields<D> = Omit<Declared, 'types' | 'schema'> & { schema: Joi.Schema; doc?: D };

export const option = <In, Out = In>(fields: Fields<OptionDoc>): Declared<In, Out, 'optional'> => fields;
export const required = <In, Out = In>(fields: Fields<OptionDoc>): Declared<In, Out, 'required'> => ({
  ...fields,
  schema: fields.schema.required(),
});
/** The schema gives the default. */
export const defaulted = <In, Out = In>(fields: Fields<OptionDoc>): Declared<In, Out, 'defaulted'> => fields;

/** A whole number with a default: its hint and its doc's range and default say the schema's. */
export function wholeNumber(
  min: number,
  max: number,
  fallback: number,
  doc: { does: string; fallback?: string },
): Declared<number, number, 'defaulted'> {
  return {
    schema: Joi.number().integer().min(min).max(max).default(fallback),
    hint: (name) => `it must be a whole number from ${min} to ${max} (default ${fallback}), e.g. ${name}: ${fallback}`,
    doc: { range: `${min} to ${max}`, fallback: doc.fallback ?? String(fallback), does: doc.does },
  };
}

/** A cap that is off unless it is set. */
export function limit(min: number, max: number, example: number, does: string): Declared<number, number, 'optional'> {
  return {
    schema: Joi.number().integer().min(min).max(max),
    hint: (name) =>
      `it must be a whole number from ${min} to ${max}, or left out for no limit, e.g. ${name}: ${example}`,
    doc: { range: `${min} to ${max}, or left out`, fallback: 'no limit', does },
  };
}

/** This option, marked a run-time tunable. */
export const tunable = <D extends Declared>(declared: D): D & { readonly tunable: true } => ({
  ...declared,
  tunable: true,
});

type TunableName<D> = { [K in keyof D]: D[K] extends { tunable: true } ? K : never }[keyof D];

/** The options marked tunable, by name. */
export type Tunables<D extends Declarations> = Pick<D, TunableName<D>>;

export function tunablesOf<D extends Declarations>(declarations: D): Tunables<D> {
  return Object.fromEntries(Object.entries(declarations).filter(([, declared]) => declared.tunable)) as Tunables<D>;
}

type In<D> = D extends Declared<infer I, unknown, Presence> ? I : never;
type Out<D> = D extends Declared<unknown, infer O, Presence> ? O : never;
type PresenceOf<D> = D extends Declared<unknown, unknown, infer P> ? P : never;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** What a caller gives: the required options, and the others optional. */
export type OptionsIn<D extends Declarations> = Flat<
  { -readonly [K in keyof D as PresenceOf<D[K]> extends 'required' ? K : never]: In<D[K]> } & {
    -readonly [K in keyof D as PresenceOf<D[K]> extends 'required' ? never : K]?: In<D[K]>;
  }
>;

/** What validation gives: defaults filled in, only the options without one optional. */
export type OptionsOut<D extends Declarations> = Flat<
  { -readonly [K in keyof D as PresenceOf<D[K]> extends 'optional' ? never : K]: Out<D[K]> } & {
    -readonly [K in keyof D as PresenceOf<D[K]> extends 'optional' ? K : never]?: Out<D[K]>;
  }
>;

/** Each option's schema, by its name. */
export function schemasOf(declarations: Declarations): Record<string, Joi.Schema> {
  return Object.fromEntries(Object.entries(declarations).map(([name, declared]) => [name, declared.schema]));
}

/** The object schema of these options. */
export const schemaOf = (declarations: Declarations): Joi.ObjectSchema => Joi.object(schemasOf(declarations));

/** Each option's hint, keyed by its name (`parent.name` when qualified), inner options' too. */
export function hintsOf(
  declarations: Declarations,
  hints = new Map<string, string>(),
  parent?: string,
): Map<string, string> {
  for (const [name, declared] of Object.entries(declarations)) {
    if (declared.hint !== undefined) {
      const key = declared.qualified && parent ? `${parent}.${name}` : name;
      const hint = typeof declared.hint === 'function' ? declared.hint(name) : declared.hint;
      if (hints.has(key) && hints.get(key) !== hint) throw new Error(`two hints for options named '${key}'`);
      hints.set(key, hint);
    }
    if (declared.inner) hintsOf(declared.inner, hints, name);
  }
  return hints;
}

/** The option table's rows, by option path (`bindings[].maxTurns`), inner options' included. */
export function docRows(declarations: Declarations, prefix = ''): ({ option: string } & OptionDoc)[] {
  return Object.entries(declarations).flatMap(([name, declared]) => {
    const path = `${prefix}${name}${declared.list ? '[]' : ''}`;
    const own = declared.doc ? [{ option: path, ...declared.doc }] : [];
    return declared.inner ? [...own, ...docRows(declared.inner, `${path}.`)] : own;
  });
}

const describedDefault = (declared: Declared) =>
  (declared.schema.describe() as { flags?: { default?: unknown } }).flags?.default;

/** The default the schema fills in. */
export function defaultOf<T>(declared: Declared<unknown, T, 'defaulted'>): T {
  return describedDefault(declared) as T;
}

/** The names of the options that have no default: left out, they are off (a budget lifted, a cap not set). */
export const withoutDefault = (declarations: Declarations): string[] =>
  Object.entries(declarations)
    .filter(([, declared]) => describedDefault(declared) === undefined)
    .map(([name]) => name);

/**
 * Validates with these declarations' schema and hints, else throws the coded error naming the option, the value and the
 * fix.
 */
export function validator<T>(component: string, schema: Joi.Schema, declarations: Declarations): (value: unknown) => T {
  const hints = hintsOf(declarations);
  return (value) => validated<T>(schema, value, hints, component);
}

/**
 * The `logger` option of agentLoop and mcpTrellis. Joi validates a copy; the caller's own logger (its prototype, its
 * private fields) is what logs.
 */
export const loggerOption = option<Logger>({
  schema: Joi.object({
    error: Joi.function().required(),
    warn: Joi.function().required(),
    info: Joi.function().required(),
    debug: Joi.function().required(),
  })
    .unknown()
    .custom((_copy, helpers) => helpers.original),
  hint:
    'it must be a winston-compatible logger with error, warn, ' +
    'info and debug methods, e.g. logger: winston.createLogger()',
});
