import { bindingOptions } from '../binding/options';
import { loopOptions, type Config } from './agent-loop';
import { schemaOf, tunablesOf, withoutDefault, type Declarations, type OptionsOut } from './declaration';

/**
 * The run-time tunables, each the option declared `tunable`: `settings.update()`, the admin API, a SIGHUP reload
 * and a fleet's store change them for the loops that start after. Every list of them is derived here.
 */
const settingsOptions = tunablesOf(loopOptions);
const bindingSettingsOptions = tunablesOf(bindingOptions);

/** agentLoop's tunables, by name */
export const TUNABLE = Object.keys(settingsOptions);
/** what `settings.update({ bindings: { <name>: ... } })` may change on a binding */
export const BINDING_TUNABLE = Object.keys(bindingSettingsOptions);
/** the tunables without a default: unset (`null` in a patch, left out of a reloaded file), that budget is lifted */
export const LIFTABLE = withoutDefault(settingsOptions);

export const settingsSchema = schemaOf(settingsOptions);
export const bindingSettingsSchema = schemaOf(bindingSettingsOptions);

export type Settings = OptionsOut<typeof settingsOptions>;

export type BindingSettings = OptionsOut<typeof bindingSettingsOptions>;

/** What `settings.get()` shows: the global tunables, and each binding's under its name. */
export interface RunTimeSettings extends Settings {
  bindings: Record<string, BindingSettings>;
}

type Liftable = { [K in keyof Settings]-?: undefined extends Settings[K] ? K : never }[keyof Settings];

/**
 * What `settings.update()` takes: any of them; `maxTokensPerLoop: null` or `keyBudget: null` (or undefined) lifts that
 * budget.
 */
export type SettingsPatch = Partial<Omit<Settings, Liftable>> & { [K in Liftable]?: Settings[K] | null } & {
  bindings?: Record<string, Partial<BindingSettings>>;
};

const picked = (values: object, names: string[]) =>
  Object.fromEntries(names.map((name) => [name, (values as Record<string, unknown>)[name]]));

/** the tunables' values in the options */
export const settingsOf = (config: Config): Settings => picked(config, TUNABLE) as Settings;

/** a binding's tunables' values */
export const bindingSettingsOf = (binding: Partial<BindingSettings>): BindingSettings =>
  picked(binding, BINDING_TUNABLE) as BindingSettings;

/** The settings as a patch that says each lifted budget (`null`), so that applied elsewhere it lifts it there too. */
export const asPatch = <T extends Settings>(settings: T): T & SettingsPatch => ({
  ...settings,
  ...Object.fromEntries(LIFTABLE.map((name) => [name, settings[name as keyof Settings] ?? null])),
});

/** A tunable a form edits as a whole number: its range, and whether it may be left empty (that budget lifted). */
export interface NumberField {
  name: string;
  min: number;
  max: number;
  optional: boolean;
}

interface DescribedNumber {
  type: string;
  rules?: { name: string; args?: { limit?: number } }[];
}

function numberFields(declarations: Declarations): NumberField[] {
  const lifted = withoutDefault(declarations);
  return Object.entries(declarations).flatMap(([name, declared]) => {
    const { type, rules = [] } = declared.schema.describe() as DescribedNumber;
    const limit = (rule: string) => rules.find((found) => found.name === rule)?.args?.limit;
    const [min, max] = [limit('min'), limit('max')];
    if (type !== 'number' || min === undefined || max === undefined) return [];
    return [{ name, min, max, optional: lifted.includes(name) }];
  });
}

/** The whole-number tunables, global and per binding, as the admin page's settings form shows them. */
export const NUMBER_FIELDS = {
  settings: numberFields(settingsOptions),
  bindings: numberFields(bindingSettingsOptions),
};
