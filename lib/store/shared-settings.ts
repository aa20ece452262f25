import type { LiveJudge } from '../judge/live-judge';
import type { Rule } from '../judge/rule';
import { asPatch, type SettingsPatch } from '../tunables';
import type { LiveSettings } from '../settings';
import type { Logger } from '../types';
import type { Store } from './store';

/** The source every change that came from the store is logged with; such a change is not shared again. */
export const FROM_STORE = 'the store';

const SETTINGS = 'settings';
const RULES = 'judge-rules';

interface Shared {
  replica: string;
  kind: typeof SETTINGS | typeof RULES;
  value: unknown;
}

/**
 * The run-time settings and judge rules of a fleet: a change on any replica (admin API, `settings.update`,
 * `judgeRules.replace`) is written to the store and published; every other replica applies it as it hears it, and
 * a replica that starts, or finds the store again, reads what the fleet holds now.
 */
export class SharedSettings {
  private joined = false;

  constructor(
    private readonly store: Store,
    private readonly replica: string,
    private readonly settings: LiveSettings,
    private readonly judge: LiveJudge,
    private readonly logger: Logger,
  ) {
    settings.onChange((after, source) => source !== FROM_STORE && this.share(SETTINGS, asPatch(after)));
    judge.onReplace((rules, source) => source !== FROM_STORE && this.share(RULES, rules));
    store.subscribe(SETTINGS, (message) => this.heard(message));
    store.onReachable(() => void this.catchUp());
  }

  private share(kind: Shared['kind'], value: unknown): void {
    const text = JSON.stringify(value);
    const message: Shared = { replica: this.replica, kind, value };
    this.store
      .set(kind, text)
      .then(() => this.store.publish(SETTINGS, JSON.stringify(message)))
      .catch((error: Error) =>
        this.logger.warn(
          'agent-loop could not share a change through the store; the other replicas keep what they had',
          { kind, reason: error.message },
        ),
      );
  }

  private heard(text: string): void {
    let message: Shared;
    try {
      message = JSON.parse(text) as Shared;
    } catch {
      return;
    }
    if (message.replica !== this.replica) this.apply(message.kind, message.value);
  }

  /** what the fleet holds now, over what this replica has (a change missed while the store was away included) */
  private async catchUp(): Promise<void> {
    try {
      const [settings, rules] = await Promise.all([this.store.get(SETTINGS), this.store.get(RULES)]);
      if (settings !== undefined) this.apply(SETTINGS, JSON.parse(settings));
      if (rules !== undefined) this.apply(RULES, JSON.parse(rules));
      if (!this.joined && (settings !== undefined || rules !== undefined))
        this.logger.info('agent-loop settings from the store', {
          replica: this.replica,
          settings: settings !== undefined,
          judgeRules: rules !== undefined,
        });
      this.joined = true;
    } catch (error) {
      this.logger.warn('agent-loop could not read the settings from the store; it keeps the ones it has', {
        reason: (error as Error).message,
      });
    }
  }

  private apply(kind: Shared['kind'], value: unknown): void {
    try {
      if (kind === SETTINGS) this.settings.update(value as SettingsPatch, FROM_STORE);
      else if (JSON.stringify(this.judge.view().rules) !== JSON.stringify(value))
        this.judge.replaceRules(value as Rule[], FROM_STORE);
    } catch (error) {
      this.logger.warn('agent-loop ignored settings from the store that do not fit this replica', {
        kind,
        reason: (error as Error).message,
      });
    }
  }
}
