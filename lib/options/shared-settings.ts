import type { LiveJudge } from '../judge/live-judge';
import type { Rule } from '../judge/rule';
import { asPatch, type SettingsPatch } from './tunables';
import type { LiveSettings } from './live-settings';
import type { Logger } from '../types';
import { openedChange, signedChange, type SharedKind } from '../store/fleet-message';
import type { Store } from '../store/store';

/** The source every change that came from the store is logged with; such a change is not shared again. */
export const FROM_STORE = 'the store';

/**
 * At most one warning a minute per way in of refused changes (a flood of them would flood the log): the metric counts
 * all.
 */
const WARN_EVERY_MS = 60_000;
const CHANNEL = 'settings';
const SETTINGS = 'settings';
const RULES = 'judge-rules';

export interface SharedSettingsOptions {
  store: Store;
  replica: string;
  /** the agentLoop's secret: what replicas share is signed with a key derived from it, and refused unsigned */
  secret: Buffer;
  /** false when the secret is this process's own (no `internalSecret`, no `MCP_INTERNAL_SECRET`): said at start */
  secretShared: boolean;
  settings: LiveSettings;
  judge: LiveJudge;
  logger: Logger;
  /** counts a change refused as not signed (`agent_loop_store_changes_refused_total`) */
  refused?: (via: 'message' | 'store') => void;
}

/**
 * The run-time settings and judge rules of a fleet: a change on any replica (admin API, `settings.update`,
 * `judgeRules.replace`) is signed, written to the store and published; every other replica applies it as it hears
 * it, and a replica that starts, or finds the store again, reads what the fleet holds now. Each change has a version:
 * a replica adopts only a change newer than the one it holds, and shares what it holds again when the store has an
 * older one or none (a change made while the store was away, a Redis that came back empty).
 */
export class SharedSettings {
  private joined = false;
  /** the newest change of each kind this replica made or adopted, as signed */
  private readonly held = new Map<SharedKind, { version: number; signed: string }>();
  private readonly warnedAt = new Map<'message' | 'store', number>();

  constructor(private readonly options: SharedSettingsOptions) {
    const { settings, judge, store } = options;
    if (!options.secretShared)
      options.logger.warn(
        'agent-loop shares settings through the store without internalSecret or MCP_INTERNAL_SECRET: replicas in ' +
          "other processes refuse this one's changes (signed with a key of its own), and it refuses theirs; " +
          'give every replica the same internalSecret',
        { replica: options.replica },
      );
    settings.onChange((after, source) => source !== FROM_STORE && this.changed(SETTINGS, asPatch(after)));
    judge.onReplace((rules, source) => source !== FROM_STORE && this.changed(RULES, rules));
    store.subscribe(CHANNEL, (message) => this.heard(message));
    store.onReachable(() => void this.catchUp());
  }

  private changed(kind: SharedKind, value: unknown): void {
    const newest = Math.max(0, ...[...this.held.values()].map((held) => held.version));
    const version = Math.max(Date.now(), newest + 1);
    const signed = signedChange(this.options.secret, { replica: this.options.replica, kind, version, value });
    this.held.set(kind, { version, signed });
    this.share(kind, signed);
  }

  private share(kind: SharedKind, signed: string): void {
    const { store, logger } = this.options;
    store
      .set(kind, signed)
      .then(() => store.publish(CHANNEL, signed))
      .catch((error: Error) =>
        logger.warn(
          'agent-loop could not share a change through the store; it shares it again once the store is back',
          { kind, reason: error.message },
        ),
      );
  }

  private heard(text: string): void {
    const change = this.opened(text, 'message');
    if (change) this.adopt(change.kind, change.version, change.value, text);
  }

  /** the change signed in `text`, else undefined: refused, counted, and warned of at most once a minute */
  private opened(text: string, via: 'message' | 'store') {
    const change = openedChange(this.options.secret, text);
    if (change) return change;
    this.options.refused?.(via);
    const now = Date.now();
    if (now - (this.warnedAt.get(via) ?? -Infinity) < WARN_EVERY_MS) return undefined;
    this.warnedAt.set(via, now);
    this.options.logger.warn(
      'agent-loop refused a change of settings or judge rules that ' +
        "is not signed with the fleet's internalSecret; nothing changed",
      { via, replica: this.options.replica },
    );
    return undefined;
  }

  /** applies a change newer than the one held; false for an older one or the same (a replay, a late read, its own) */
  private adopt(kind: SharedKind, version: number, value: unknown, signed: string): boolean {
    if (version <= (this.held.get(kind)?.version ?? 0)) return false;
    this.held.set(kind, { version, signed });
    this.apply(kind, value);
    return true;
  }

  /** what the fleet holds now, over what this replica has (a change missed while the store was away included) */
  private async catchUp(): Promise<void> {
    const { store, logger, replica } = this.options;
    try {
      const [settings, rules] = await Promise.all([store.get(SETTINGS), store.get(RULES)]);
      const adopted = { settings: this.caughtUp(SETTINGS, settings), judgeRules: this.caughtUp(RULES, rules) };
      if (!this.joined && (adopted.settings || adopted.judgeRules))
        logger.info('agent-loop settings from the store', { replica, ...adopted });
      this.joined = true;
    } catch (error) {
      logger.warn('agent-loop could not read the settings from the store; it keeps the ones it has', {
        reason: (error as Error).message,
      });
    }
  }

  /** adopts the store's change of `kind` when newer; shares this replica's again when the store's is older or none */
  private caughtUp(kind: SharedKind, text: string | undefined): boolean {
    const change = text === undefined ? undefined : this.opened(text, 'store');
    if (change?.kind === kind && this.adopt(kind, change.version, change.value, text!)) return true;
    const held = this.held.get(kind);
    if (held && held.version > (change?.kind === kind ? change.version : 0)) {
      if (text === undefined)
        this.options.logger.warn("agent-loop found the store without the fleet's latest change; it shares it again", {
          kind,
          replica: this.options.replica,
        });
      this.share(kind, held.signed);
    }
    return false;
  }

  private apply(kind: SharedKind, value: unknown): void {
    try {
      if (kind === SETTINGS) this.options.settings.update(value as SettingsPatch, FROM_STORE);
      else if (JSON.stringify(this.options.judge.view().rules) !== JSON.stringify(value))
        this.options.judge.replaceRules(value as Rule[], FROM_STORE);
    } catch (error) {
      this.options.logger.warn('agent-loop ignored settings from the store that do not fit this replica', {
        kind,
        reason: (error as Error).message,
      });
    }
  }
}
