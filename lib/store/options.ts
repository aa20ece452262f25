import Joi from 'joi';
import { AgentLoopError } from '../errors';
import { option } from '../options/declaration';
import { optionalPeer } from '../shared/optional-peer';
import type { Logger } from '../types';
import { MemoryStore } from './memory-store';
import type { RedisConstructor } from './redis-client';
import { RedisStore, type StoreObserver } from './redis-store';
import type { KeyBudgetOption } from './key-budget';
import type { Store } from './store';

export interface StoreOption {
  /** `redis://[:password@]host:port/db`, or `rediss://` for TLS */
  url: string;
  /** before every key and channel (default `agent-loop:`) */
  prefix?: string;
}

export const STORE_PREFIX = 'agent-loop:';

export const storeOption = option<StoreOption>({
  schema: Joi.object({
    url: Joi.string()
      .uri({ scheme: ['redis', 'rediss'] })
      .required(),
    prefix: Joi.string().max(200),
  }),
  hint:
    "it must be { url: 'redis://host:6379/0', prefix?: 'agent-loop:' } (rediss:// for TLS; " +
    "a password in the URL is never shown), e.g. store: { url: 'redis://127.0.0.1:6379' }",
  doc: {
    range: "`{ url: 'redis://…' or 'rediss://…', prefix? }`",
    fallback: 'this process only (memory)',
    does:
      'what a fleet of replicas shares through Redis: one-time approval answers, settings and judge rules, ' +
      'the loop list, `keyBudget` ([A fleet](fleet.md)); needs the ioredis package; a password in the URL ' +
      'never shows in a log line, an error or the admin API',
  },
});

export const keyBudgetOption = option<KeyBudgetOption>({
  schema: Joi.object({
    tokens: Joi.number().integer().min(1).max(1e15).required(),
    windowSec: Joi.number()
      .integer()
      .min(1)
      .max(31 * 86400)
      .required(),
  }),
  hint:
    'it must be { tokens: a whole number of 1 or more, windowSec: 1 to 2678400 }, ' +
    'or left out for no budget, e.g. keyBudget: { tokens: 1000000, windowSec: 86400 }',
  doc: {
    range: '`{ tokens, windowSec }`, or left out',
    fallback: 'no budget',
    does:
      'the `total_tokens` the loops of one client key (hashed, one key however it is sent: bearer or ' +
      '`x-api-key`) may spend per window, summed across the fleet with `store` (else per process): a new loop ' +
      'of a spent key gets HTTP 429 with `retry-after` and `x-agent-loop-stop: key-budget`, a running one ' +
      'stops like `maxTokensPerLoop` (it sends its tokens every 4 turns and at its end, and sees the spend of ' +
      'other loops between: [A fleet](fleet.md)); `GET /admin/api/key-budget`; run-time tunable',
  },
});

/** The store the option names: Redis with `store`, else this process's memory. */
export function openStore(
  option: StoreOption | undefined,
  logger: Logger,
  observe?: StoreObserver,
  component = 'agentLoop',
): Store {
  if (!option) return new MemoryStore();
  const ioredis = optionalPeer<{ Redis: RedisConstructor }>('ioredis');
  if (!ioredis)
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_MISSING_PEER',
      `${component}: option 'store' needs the ioredis package, ` +
        `which is not installed: run npm install ioredis, or leave 'store' out.`,
    );
  return new RedisStore(ioredis.Redis, { url: option.url, prefix: option.prefix ?? STORE_PREFIX, logger, observe });
}
