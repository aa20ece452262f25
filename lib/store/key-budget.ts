import type { IncomingMessage } from 'node:http';
import { clientIdentity } from '../shared/client-identity';
import type { Logger } from '../types';
import type { Store } from './store';

export interface KeyBudgetOption {
  /** the `total_tokens` one client key's loops may spend in a window */
  tokens: number;
  windowSec: number;
}

/** What one key spent in the window in force, and when the window ends. */
export interface KeySpend {
  spent: number;
  /** ms since the epoch */
  resetsAt: number;
}

/** At most one warning a minute that budgets are not enforced while the store is away. */
const WARN_EVERY_MS = 60_000;

const windowOf = (windowSec: number, now = Date.now()) => Math.floor(now / 1000 / windowSec);
const prefixOf = (budget: KeyBudgetOption, window: number) => `budget:${budget.windowSec}:${window}:`;

/**
 * The token budget per client key (`keyBudget`): what the loops of one key (its hash, however it was sent)
 * spent in the current window, summed in the store with atomic increments, so a fleet sums it as one. While the store
 * is away, the budget is not enforced (a request is never dropped for it): a warning at most once a minute, and a
 * metric.
 */
export class KeyBudget {
  private warnedAt = -Infinity;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly unenforced?: () => void,
  ) {}

  /**
   * the hash a key is counted under (the client's identity); undefined for a request without a credential (not
   * budgeted)
   */
  keyOf(req: IncomingMessage): string | undefined {
    return clientIdentity(req);
  }

  /** what `key` spent in the window in force; undefined while the store cannot say */
  async spent(budget: KeyBudgetOption, key: string): Promise<KeySpend | undefined> {
    const window = windowOf(budget.windowSec);
    try {
      return {
        spent: Number((await this.store.get(prefixOf(budget, window) + key)) ?? 0),
        resetsAt: (window + 1) * budget.windowSec * 1000,
      };
    } catch (error) {
      return this.notEnforced(error as Error);
    }
  }

  /** adds a turn's tokens to what `key` spent; what it spent now, undefined while the store cannot say */
  async add(budget: KeyBudgetOption, key: string, tokens: number): Promise<KeySpend | undefined> {
    const window = windowOf(budget.windowSec);
    const resetsAt = (window + 1) * budget.windowSec * 1000;
    try {
      return {
        spent: await this.store.increment(prefixOf(budget, window) + key, tokens, resetsAt - Date.now() + 1000),
        resetsAt,
      };
    } catch (error) {
      return this.notEnforced(error as Error);
    }
  }

  /** every key that spent in the window in force, by the first 12 hex of its hash */
  async keys(budget: KeyBudgetOption): Promise<{ key: string; spent: number; resetsAt: string }[]> {
    const window = windowOf(budget.windowSec);
    const prefix = prefixOf(budget, window);
    const resetsAt = new Date((window + 1) * budget.windowSec * 1000).toISOString();
    const entries = await this.store.entries(prefix);
    return [...entries]
      .map(([name, spent]) => ({ key: name.slice(prefix.length, prefix.length + 12), spent: Number(spent), resetsAt }))
      .sort((a, b) => b.spent - a.spent);
  }

  private notEnforced(error: Error): undefined {
    this.unenforced?.();
    const now = Date.now();
    if (now - this.warnedAt >= WARN_EVERY_MS) {
      this.warnedAt = now;
      this.logger.warn('agent-loop key budgets are not enforced: the store is unreachable', { reason: error.message });
    }
    return undefined;
  }
}

/**
 * A loop sends its tokens to the store every this many turns and at its end, not after each turn: each send is a
 * Redis round trip, and one per turn cost the gateway some 20% more CPU per turn (BENCHMARKS.md, "A fleet's store").
 */
export const TURNS_PER_SEND = 4;

/** One loop's meter of its key's budget (`keyBudget`): what the loop checks before each turn, and what it sends. */
export interface KeyMeter {
  tokens: number;
  windowSec: number;
  /** a turn's tokens; true once the key spent its budget, as far as the loop knows (never while the store is away) */
  add(tokens: number): Promise<boolean>;
  /** sends what the loop has not sent yet (at its end, before the answer is done, so that the fleet's sum is exact) */
  flush(): Promise<void>;
}

/**
 * A loop's meter: the key's spend as the check before the loop read it, plus the tokens the loop added since, is what
 * each turn is checked against. The loop's tokens go to the store in one increment every `TURNS_PER_SEND` turns, as
 * soon as that sum reaches the budget (the increment's reply, the fleet's sum, decides), and at the loop's end. What
 * other loops of the key spend meanwhile, a loop sees at its next send: the trade for fewer round trips.
 */
export function keyMeter(
  budgets: KeyBudget,
  budget: KeyBudgetOption | undefined,
  req: IncomingMessage,
  checked?: KeySpend,
): KeyMeter | undefined {
  const key = budget && budgets.keyOf(req);
  if (!budget || key === undefined) return undefined;
  let known = checked;
  let unsent = 0;
  let turns = 0;
  const send = async () => {
    const tokens = unsent;
    unsent = 0;
    turns = 0;
    if (tokens > 0) known = await budgets.add(budget, key, tokens);
  };
  const windowEnd = () => (windowOf(budget.windowSec) + 1) * budget.windowSec * 1000;
  const spent = () => (known?.resetsAt === windowEnd() ? known.spent : 0) + unsent;
  return {
    ...budget,
    async add(tokens) {
      unsent += tokens;
      if (++turns < TURNS_PER_SEND && spent() < budget.tokens) return false;
      await send();
      return (known?.spent ?? 0) >= budget.tokens;
    },
    flush: send,
  };
}
