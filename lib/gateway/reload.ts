import { readFileSync } from 'node:fs';
import { parseConfig } from './config-file';
import { gatewayOptions, validateGatewayConfig } from './options';
import { defaultLogger } from '../shared/logger';
import type { AgentLoopMiddleware } from '../middleware';
import { optionsSchema, validate, type ValidOptions } from '../options/agent-loop';
import {
  asPatch,
  BINDING_TUNABLE,
  bindingSettingsOf,
  settingsOf,
  TUNABLE,
  type SettingsPatch,
} from '../options/tunables';
import type { Logger } from '../types';
import { isObject } from '../shared/fields';

type Config = Record<string, unknown>;

/** the gateway's own keys, which agentLoop does not take */
const GATEWAY_ONLY = Object.keys(gatewayOptions);

const without = (value: unknown, keys: string[]) =>
  isObject(value) ? Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key))) : value;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function readJson(file: string): Config {
  const config = parseConfig(readFileSync(file, 'utf8'), file);
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new Error(`${file} holds ${JSON.stringify(config)}; it must hold a JSON object`);
  return config as Config;
}

/**
 * The options whose new values a reload cannot apply, named as in the file: `upstream`, `bindings.notes`, `judge.mode`.
 */
function needingRestart(started: Config, next: Config): string[] {
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(started), ...Object.keys(next)])) {
    if (TUNABLE.includes(key) || same(started[key], next[key])) continue;
    if (key === 'judge' && same(without(started.judge, ['rules']), without(next.judge, ['rules']))) continue;
    if (key !== 'bindings') {
      changed.push(key);
      continue;
    }
    const byName = (config: Config) =>
      new Map(
        ((config.bindings ?? []) as { name: string }[]).map((binding) => [
          binding.name,
          without(binding, BINDING_TUNABLE),
        ]),
      );
    const [before, after] = [byName(started), byName(next)];
    for (const name of new Set([...before.keys(), ...after.keys()]))
      if (!same(before.get(name), after.get(name))) changed.push(`bindings.${name}`);
  }
  return changed;
}

/** The file's tunables as a settings patch: for the bindings running now, its absent budgets lifted. */
function settingsFrom(valid: ValidOptions, running: string[]): SettingsPatch {
  const bindings = Object.fromEntries(
    valid.bindings
      .filter((binding) => running.includes(binding.name))
      .map((binding) => [binding.name, bindingSettingsOf(binding)]),
  );
  return { ...asPatch(settingsOf(valid)), bindings };
}

/**
 * Re-reads the config file and applies what can change while running: the settings (global and per binding) and a
 * rules judge's rules. A file that does not read or validate changes nothing and says why; options that take a
 * restart are named and left as they run. Loops in flight keep what they started with.
 */
export function reloadConfig(
  file: string,
  loop: AgentLoopMiddleware,
  started: Config,
  logger: Logger = defaultLogger(),
): boolean {
  let next: Config;
  let valid: ValidOptions;
  try {
    next = readJson(file);
    validateGatewayConfig(next);
    valid = validate<ValidOptions>(optionsSchema, without(next, GATEWAY_ONLY));
  } catch (error) {
    const reason =
      'code' in (error as object)
        ? `${(error as { code: string }).code}: ${(error as Error).message}`
        : (error as Error).message;
    logger.error('agent-loop-gateway: SIGHUP: the config file was not reloaded; the running config stays', {
      file,
      reason,
    });
    return false;
  }
  const restart = needingRestart(started, next);
  loop.settings.update(settingsFrom(valid, Object.keys(loop.settings.get().bindings)), `SIGHUP (${file})`);
  const rules = valid.judge && 'rules' in valid.judge ? valid.judge.rules : undefined;
  const running = loop.judgeRules.get();
  if (rules && !restart.includes('judge') && !same(rules, running.rules))
    loop.judgeRules.replace(rules, `SIGHUP (${file})`);
  if (restart.length > 0)
    logger.warn('agent-loop-gateway: SIGHUP: these options take a restart; they keep their running values', {
      file,
      options: restart,
    });
  logger.info('agent-loop-gateway: SIGHUP: config reloaded', { file });
  return true;
}
