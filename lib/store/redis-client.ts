/**
 * The part of an ioredis client the store uses (ioredis 5 and 6 fit), so that the published declarations need no
 * ioredis: it is an optional peer, and a user without it must still typecheck with skipLibCheck off.
 */
export interface RedisClient {
  readonly status: string;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<'OK' | null>;
  set(key: string, value: string, nx: 'NX'): Promise<'OK' | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number): Promise<'OK' | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  del(key: string): Promise<number>;
  scan(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', size: number): Promise<[string, string[]]>;
  mget(keys: string[]): Promise<(string | null)[]>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready' | 'close', listener: () => void): unknown;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

/** The options of ioredis's client the store sets. */
export interface RedisClientOptions {
  retryStrategy: () => number;
  connectTimeout: number;
  disconnectTimeout: number;
  enableOfflineQueue: boolean;
  maxRetriesPerRequest: number | null;
  commandTimeout?: number;
}

/** ioredis's `Redis` class, as the store builds its two connections with it. */
export type RedisConstructor = new (url: string, options: RedisClientOptions) => RedisClient;
