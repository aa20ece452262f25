import { EventEmitter } from 'node:events';
import type { SetOptions, Store } from './store';

/** Every this many writes, the expired keys nobody read again are forgotten, so they do not pile up. */
const SWEEP_EVERY = 1000;

interface Entry {
  value: string;
  /** ms since the epoch; Infinity: never */
  until: number;
}

/** The store of a single process, the default: what it holds is this process's alone, and goes with it. */
export class MemoryStore implements Store {
  readonly unreachable = undefined;
  readonly description = 'memory';
  private readonly held = new Map<string, Entry>();
  private readonly channels = new EventEmitter().setMaxListeners(0);
  private writes = 0;

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    if (options.ifAbsent && this.live(key)) return false;
    if (++this.writes % SWEEP_EVERY === 0) this.sweep();
    this.held.set(key, { value, until: options.ttlMs === undefined ? Infinity : Date.now() + options.ttlMs });
    return true;
  }

  async delete(key: string, ifValue?: string): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || (ifValue !== undefined && entry.value !== ifValue)) return false;
    return this.held.delete(key);
  }

  async increment(key: string, by: number, ttlMs?: number): Promise<number> {
    const entry = this.live(key);
    const sum = (entry ? Number(entry.value) : 0) + by;
    this.held.set(key, {
      value: String(sum),
      until: entry?.until ?? (ttlMs === undefined ? Infinity : Date.now() + ttlMs),
    });
    return sum;
  }

  async entries(prefix: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const key of [...this.held.keys()]) {
      const entry = key.startsWith(prefix) ? this.live(key) : undefined;
      if (entry) found.set(key, entry.value);
    }
    return found;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.channels.emit(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    this.channels.on(channel, listener);
    return () => void this.channels.off(channel, listener);
  }

  onReachable(_listener: () => void): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.channels.removeAllListeners();
  }

  private sweep(): void {
    for (const key of [...this.held.keys()]) this.live(key);
  }

  /** the entry at `key` unless it expired (an expired one is forgotten on the way) */
  private live(key: string): Entry | undefined {
    const entry = this.held.get(key);
    if (entry && entry.until <= Date.now()) {
      this.held.delete(key);
      return undefined;
    }
    return entry;
  }
}
