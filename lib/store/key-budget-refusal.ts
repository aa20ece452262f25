import type { Request, Response } from 'express';
import { setStop } from '../shared/stop';
import type { KeyBudget, KeyBudgetOption, KeySpend } from './key-budget';

/**
 * A new loop of a key that spent its `keyBudget` is answered 429 in its wire's error shape, with `retry-after` (seconds
 * to the window's end)
 * and `x-agent-loop-stop: key-budget`; `refused` when it was, else what the key spent (the loop's meter starts from
 * it).
 * A key the store cannot count now is not refused.
 */
export async function refusedForKeyBudget(
  budgets: KeyBudget,
  budget: KeyBudgetOption | undefined,
  req: Request,
  res: Response,
  wire: { rateLimited(message: string): unknown },
): Promise<'refused' | KeySpend | undefined> {
  const key = budget && budgets.keyOf(req);
  if (!budget || key === undefined) return undefined;
  const spend = await budgets.spent(budget, key);
  if (!spend || spend.spent < budget.tokens) return spend;
  const retryAfter = Math.max(1, Math.ceil((spend.resetsAt - Date.now()) / 1000));
  res.setHeader('retry-after', String(retryAfter));
  setStop(res, 'key-budget');
  res
    .status(429)
    .json(
      wire.rateLimited(
        `agent-loop: this key's token budget is spent (keyBudget = ${budget.tokens} tokens ` +
          `per ${budget.windowSec}s, ${spend.spent} used); it renews in ${retryAfter}s.`,
      ),
    );
  return 'refused';
}
