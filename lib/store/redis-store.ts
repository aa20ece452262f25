import { redacted } from '../shared/redact';
import type { Logger } from '../types';
import type { RedisClient, RedisConstructor } from './redis-client';
import type { SetOptions, Store } from './store';

/** One store call's time and whether it answered, for the store's metrics. */
export type StoreObserver = (operation: string, seconds: number, ok: boolean) => void;

export interface RedisStoreOptions {
  url: string;
  /** put before every key and channel, so that fleets (or other apps) can share one Redis */
  prefix: string;
  logger: Logger;
  observe?: StoreObserver;
}

/** Ms between two attempts to reach Redis again: short, so that a fleet shares again within seconds. */
const RECONNECT_MS = 500;
/** A Redis that takes a connection and never answers fails the call past this, rather than hold a turn. */
const COMMAND_TIMEOUT_MS = 2000;

const DELETE_IF_VALUE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const INCREMENT =
  "local sum = redis.call('incrby', KEYS[1], ARGV[1]) " +
  "if tonumber(ARGV[2]) > 0 and redis.call('pttl', KEYS[1]) == -1 then redis.call('pexpire', KEYS[1], ARGV[2]) end " +
  'return sum';

const globEscaped = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/** Lets `client`'s connection go: QUIT when Redis answers (it closes the socket), else at once. */
async function ended(client: RedisClient): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

/**
 * The store of a fleet, in Redis (ioredis). A call while Redis is away rejects at once (no queue that would replay
 * it later, no wait); the connection retries every half second; subscriptions are made again on each reconnect.
 */
export class RedisStore implements Store {
  readonly description: string;
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  private readonly reachable = new Set<() => void>();
  private lastError: string | undefined;
  private closed = false;
  /** settles once Redis confirmed the latest SUBSCRIBE: a catch-up read before it could miss a message between */
  private subscribed: Promise<unknown> = Promise.resolve();

  constructor(
    Redis: RedisConstructor,
    private readonly options: RedisStoreOptions,
  ) {
    this.description = redacted(options.url);
    const common = {
      retryStrategy: () => RECONNECT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
      disconnectTimeout: 100,
    };
    this.client = new Redis(options.url, {
      ...common,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // the subscriber queues its SUBSCRIBEs while Redis is away, and ioredis sends them again on every reconnect
    this.subscriber = new Redis(options.url, { ...common, enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.client.defineCommand('deleteIfValue', { numberOfKeys: 1, lua: DELETE_IF_VALUE });
    this.client.defineCommand('incrementWithTtl', { numberOfKeys: 1, lua: INCREMENT });
    this.client.on('error', (error: Error) => this.away(error));
    this.subscriber.on('error', () => undefined);
    this.client.on('ready', () => this.reached());
    this.subscriber.on('ready', () => this.reached());
    // a close follows the error that caused it (a refused password, a reset): that error stays the reason
    this.client.on('close', () => {
      if (this.lastError === undefined) this.away(new Error('the connection closed'));
    });
    this.subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
  }

  get unreachable(): string | undefined {
    if (this.client.status === 'ready') return undefined;
    return this.lastError ?? `not connected (${this.client.status})`;
  }

  get(key: string): Promise<string | undefined> {
    return this.timed('get', async () => (await this.client.get(this.key(key))) ?? undefined);
  }

  set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    return this.timed('set', async () => {
      const k = this.key(key);
      const ttl = options.ttlMs === undefined ? undefined : Math.max(1, Math.ceil(options.ttlMs));
      let reply: string | null;
      if (ttl !== undefined && options.ifAbsent) reply = await this.client.set(k, value, 'PX', ttl, 'NX');
      else if (ttl !== undefined) reply = await this.client.set(k, value, 'PX', ttl);
      else if (options.ifAbsent) reply = await this.client.set(k, value, 'NX');
      else reply = await this.client.set(k, value);
      return reply === 'OK';
    });
  }

  delete(key: string, ifValue?: string): Promise<boolean> {
    return this.timed('delete', async () => {
      if (ifValue === undefined) return (await this.client.del(this.key(key))) > 0;
      const run = (this.client as unknown as { deleteIfValue(key: string, value: string): Promise<number> })
        .deleteIfValue;
      return (await run.call(this.client, this.key(key), ifValue)) > 0;
    });
  }

  increment(key: string, by: number, ttlMs = 0): Promise<number> {
    return this.timed('increment', async () => {
      const run = (
        this.client as unknown as { incrementWithTtl(key: string, by: number, ttlMs: number): Promise<number> }
      ).incrementWithTtl;
      return Number(await run.call(this.client, this.key(key), Math.round(by), Math.ceil(ttlMs)));
    });
  }

  entries(prefix: string): Promise<Map<string, string>> {
    return this.timed('entries', async () => {
      const keys = new Set<string>();
      let cursor = '0';
      do {
        const [next, found] = await this.client.scan(
          cursor,
          'MATCH',
          `${globEscaped(this.key(prefix))}*`,
          'COUNT',
          1000,
        );
        found.forEach((key) => keys.add(key));
        cursor = next;
      } while (cursor !== '0');
      const list = [...keys];
      const values = list.length === 0 ? [] : await this.client.mget(list);
      const start = this.options.prefix.length;
      return new Map(list.flatMap((key, i) => (values[i] === null ? [] : [[key.slice(start), values[i] as string]])));
    });
  }

  publish(channel: string, message: string): Promise<void> {
    return this.timed('publish', async () => void (await this.client.publish(this.key(channel), message)));
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      this.subscribed = this.subscriber.subscribe(this.key(channel)).catch(() => undefined);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      this.subscriber.unsubscribe(this.key(channel)).catch(() => undefined);
    };
  }

  onReachable(listener: () => void): () => void {
    this.reachable.add(listener);
    if (this.bothReady()) void this.subscribed.then(() => this.bothReady() && listener());
    return () => void this.reachable.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.reachable.clear();
    await Promise.all([this.client, this.subscriber].map(ended));
  }

  private key(name: string): string {
    return this.options.prefix + name;
  }

  private deliver(channel: string, message: string): void {
    const set = this.listeners.get(channel.slice(this.options.prefix.length));
    for (const listener of [...(set ?? [])]) listener(message);
  }

  private away(error: Error): void {
    const reason = redacted(error.message || String(error));
    if (this.closed) return;
    if (this.lastError === undefined)
      this.options.logger.warn('agent-loop store unreachable; the loop runs on without it', {
        store: this.description,
        reason,
      });
    this.lastError = reason;
  }

  private bothReady(): boolean {
    return this.client.status === 'ready' && this.subscriber.status === 'ready';
  }

  /**
   * Once both connections are back and Redis confirmed every subscription: a catch-up read before that would miss
   * what is published between the read and the subscription (SUBSCRIBE again is harmless: Redis keeps one).
   */
  private reached(): void {
    if (!this.bothReady()) return;
    if (this.lastError !== undefined)
      this.options.logger.info('agent-loop store reachable again', { store: this.description });
    this.lastError = undefined;
    const channels = [...this.listeners.keys()].map((channel) => this.key(channel));
    if (channels.length > 0) this.subscribed = this.subscriber.subscribe(...channels).catch(() => undefined);
    void this.subscribed.then(() => {
      if (this.bothReady()) for (const listener of [...this.reachable]) listener();
    });
  }

  private async timed<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await call();
      this.options.observe?.(operation, seconds(), true);
      return result;
    } catch (error) {
      this.options.observe?.(operation, seconds(), false);
      throw new Error(`store ${operation} failed: ${redacted((error as Error).message)}`);
    }
  }
}
