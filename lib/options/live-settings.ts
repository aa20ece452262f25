import Joi from 'joi';
import type { Bindings } from '../binding/binding';
import { validate } from './agent-loop';
import {
  bindingSettingsSchema,
  LIFTABLE,
  settingsSchema,
  type RunTimeSettings,
  type Settings,
  type SettingsPatch,
} from './tunables';
import type { Logger } from '../types';
import { isObject } from '../shared/fields';

const withoutUndefined = <T extends object>(values: T): T =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as T;

/** `patch` over `current`, binding by binding; whatever is not an object is left for the schema to refuse by name. */
function merged(current: RunTimeSettings, patch: Record<string, unknown>): Record<string, unknown> {
  const { bindings, ...global } = patch;
  const next: Record<string, unknown> = { ...current, ...global };
  for (const lifted of LIFTABLE) if (next[lifted] === null || next[lifted] === undefined) delete next[lifted];
  if (bindings === undefined) return next;
  if (!isObject(bindings)) return { ...next, bindings };
  const tuned = Object.entries(bindings).map(([name, values]) => [
    name,
    isObject(values) ? { ...current.bindings[name], ...values } : values,
  ]);
  return { ...next, bindings: { ...current.bindings, ...Object.fromEntries(tuned) } };
}

/** What differs, by dotted path: `{ 'bindings.repo.maxTurns': { from: 6, to: 10 } }`. */
function changes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  prefix = '',
): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [from, to] = [before[key], after[key]];
    if (isObject(from) && isObject(to)) Object.assign(changed, changes(from, to, `${prefix}${key}.`));
    else if (from !== to) changed[`${prefix}${key}`] = { from: from ?? null, to: to ?? null };
  }
  return changed;
}

/**
 * The admin-tunable values, validated like the options. A loop takes them when it starts and keeps them to its
 * end, so a change applies to the loops that start after it.
 */
export class LiveSettings {
  private global: Settings;
  private readonly schema: Joi.ObjectSchema;
  private readonly listeners = new Set<(after: RunTimeSettings, source: string) => void>();

  constructor(
    initial: Settings,
    private readonly bindings: Bindings,
    private readonly logger: Logger,
  ) {
    this.global = withoutUndefined(initial);
    const tunable = bindings.settings();
    this.schema = settingsSchema.keys({
      bindings: Joi.object(Object.fromEntries(Object.keys(tunable).map((name) => [name, bindingSettingsSchema]))),
    });
  }

  /** what a loop starting now runs with */
  get current(): Settings {
    return this.global;
  }

  get(): RunTimeSettings {
    return { ...this.global, bindings: this.bindings.settings() };
  }

  /** A bad value throws the option's coded error and changes nothing; every change is logged with what changed. */
  update(patch: SettingsPatch, source = 'settings.update()'): RunTimeSettings {
    const before = this.get();
    const { bindings, ...global } = validate<RunTimeSettings>(
      this.schema,
      isObject(patch) ? merged(before, patch) : patch,
    );
    this.global = withoutUndefined(global);
    for (const [name, values] of Object.entries(bindings)) this.bindings.tune(name, values);
    const after = this.get();
    const changed = changes(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>);
    if (Object.keys(changed).length > 0) {
      this.logger.info('agent-loop settings changed', { source, changed });
      for (const listener of this.listeners) listener(after, source);
    }
    return after;
  }

  /** `listener` hears of every update that changed something, with who made it */
  onChange(listener: (after: RunTimeSettings, source: string) => void): void {
    this.listeners.add(listener);
  }
}
