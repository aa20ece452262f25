/**
 * How `set` writes: `ttlMs` makes the key expire; `ifAbsent` writes only a key that is not there (a lock, a one-time
 * answer).
 */
export interface SetOptions {
  ttlMs?: number;
  ifAbsent?: boolean;
}

/**
 * What a fleet of gateways shares: small string values under keys, atomic counters, and messages. The default
 * holds them in this process (`MemoryStore`); with the `store` option they live in Redis (`RedisStore`), and every
 * replica sees the same. Keys and channels are the caller's words: the store adds its prefix itself.
 *
 * A call rejects while the store cannot be reached (it never waits for it to come back): the caller decides what
 * holds without it.
 */
export interface Store {
  /** the value at `key`; undefined when there is none or it expired */
  get(key: string): Promise<string | undefined>;
  /** writes `value` at `key`; false when `ifAbsent` found the key there (nothing written) */
  set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /**
   * removes `key`; with `ifValue`, only while it still holds that value (releasing a lock one holds); true when removed
   */
  delete(key: string, ifValue?: string): Promise<boolean>;
  /**
   * adds `by` to the whole number at `key` (0 when there is none), atomically across the fleet; a new key gets `ttlMs`;
   * the sum
   */
  increment(key: string, by: number, ttlMs?: number): Promise<number>;
  /** every key that starts with `prefix`, with its value */
  entries(prefix: string): Promise<Map<string, string>>;
  /** sends `message` to every subscriber of `channel` in the fleet, this process's included */
  publish(channel: string, message: string): Promise<void>;
  /** `listener` gets each message published on `channel` from now on; the function returned stops it */
  subscribe(channel: string, listener: (message: string) => void): () => void;
  /**
   * calls `listener` each time the store is reached: when it first connects and each time it comes back after it was
   * away (and soon after this call, when it is reachable now), to catch up on what was missed; a store in this process
   * is never away and has nothing to catch up on: never. The function returned stops it
   */
  onReachable(listener: () => void): () => void;
  /** why the store cannot be reached right now (for `/readyz`); undefined while it answers */
  readonly unreachable: string | undefined;
  /** what it is, for a log line: `memory`, or the Redis URL without its password */
  readonly description: string;
  close(): Promise<void>;
}
