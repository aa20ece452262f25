import Joi from 'joi';
import type * as IORedis from 'ioredis';
import { AgentLoopError } from '../errors';
import { option } from '../option';
import { optionalPeer } from '../telemetry/optional-peer';
import type { Logger } from '../types';
import { MemoryStore } from './memory-store';
import { RedisStore, type StoreObserver } from './redis-store';
import type { Store } from './store';

export interface StoreOption {
  /** `redis://[:password@]host:port/db`, or `rediss://` for TLS */
  url: string;
  /** before every key and channel (default `agent-loop:`) */
  prefix?: string;
}

export const STORE_PREFIX = 'agent-loop:';

export const storeOption = option<StoreOption>({
  schema: Joi.object({ url: Joi.string().uri({ scheme: ['redis', 'rediss'] }).required(), prefix: Joi.string().max(200) }),
  hint: "it must be { url: 'redis://host:6379/0', prefix?: 'agent-loop:' } (rediss:// for TLS; a password in the URL is never shown), e.g. store: { url: 'redis://127.0.0.1:6379' }",
  doc: {
    range: "`{ url: 'redis://…' or 'rediss://…', prefix? }`",
    fallback: 'this process only (memory)',
    does: "what a fleet of replicas shares through Redis: one-time approval answers, settings and judge rules, the loop list, `keyBudget` ([A fleet](fleet.md)); needs the ioredis package; a password in the URL never shows in a log line, an error or the admin API",
  },
});

/** The store the option names: Redis with `store`, else this process's memory. */
export function openStore(option: StoreOption | undefined, logger: Logger, observe?: StoreObserver, component = 'agentLoop'): Store {
  if (!option) return new MemoryStore();
  const ioredis = optionalPeer<typeof IORedis>('ioredis');
  if (!ioredis) throw new AgentLoopError('ERR_AGENT_LOOP_MISSING_PEER', `${component}: option 'store' needs the ioredis package, which is not installed: run npm install ioredis, or leave 'store' out.`);
  return new RedisStore(ioredis.Redis, { url: option.url, prefix: option.prefix ?? STORE_PREFIX, logger, observe });
}
