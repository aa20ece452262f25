import type { IncomingHttpHeaders } from 'node:http';
import type { McpConnection } from './mcp-connection';

export interface PoolOptions {
  /** lower-case names of the client's headers that go onto the MCP requests */
  forwardHeaders: string[];
  /** the connection for requests that carry none of `forwardHeaders` */
  shared: McpConnection;
  open(forwarded: Record<string, string>): McpConnection;
  /** connections kept open at most; the least recently used idle one goes first */
  maxConnections?: number;
  /** an unused connection is closed after this long */
  idleMs?: number;
}

export interface Lease {
  connection: McpConnection;
  release(): void;
}

export interface ConnectionPool {
  acquire(headers: IncomingHttpHeaders | undefined): Lease;
  /** the connection kept under `key` (a signed-in user's), opened with `open` the first time */
  acquireKeyed(key: string, open: () => McpConnection): Lease;
  close(): Promise<void>;
}

interface Entry {
  connection: McpConnection;
  busy: number;
  idle?: NodeJS.Timeout;
}

const NO_RELEASE = () => undefined;

function forwarded(names: string[], headers: IncomingHttpHeaders | undefined): Record<string, string> | undefined {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = headers?.[name];
    if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/**
 * Connections that carry a user's credentials, one per distinct set of forwarded header values, so that one
 * user's session never serves another user's call. A small LRU: idle connections close after `idleMs`, and past
 * `maxConnections` the least recently used idle one closes (busy ones are never closed under a call).
 */
export function connectionPool({
  forwardHeaders,
  shared,
  open,
  maxConnections = 32,
  idleMs = 60_000,
}: PoolOptions): ConnectionPool {
  const entries = new Map<string, Entry>();

  function drop(key: string, entry: Entry): void {
    if (entries.get(key) === entry) entries.delete(key);
    clearTimeout(entry.idle);
    void entry.connection.close();
  }

  function makeRoom(): void {
    for (const [key, entry] of entries) {
      if (entries.size < maxConnections) return;
      if (entry.busy === 0) drop(key, entry);
    }
  }

  function lease(key: string, entry: Entry): Lease {
    entry.busy++;
    clearTimeout(entry.idle);
    let released = false;
    return {
      connection: entry.connection,
      release() {
        if (released) return;
        released = true;
        if (--entry.busy === 0) entry.idle = setTimeout(() => drop(key, entry), idleMs).unref();
      },
    };
  }

  function acquireKeyed(key: string, opened: () => McpConnection): Lease {
    let entry = entries.get(key);
    if (entry) entries.delete(key);
    else {
      makeRoom();
      entry = { connection: opened(), busy: 0 };
    }
    entries.set(key, entry);
    return lease(key, entry);
  }

  return {
    acquire(headers) {
      const values = forwarded(forwardHeaders, headers);
      if (!values) return { connection: shared, release: NO_RELEASE };
      return acquireKeyed(JSON.stringify(forwardHeaders.map((name) => values[name] ?? null)), () => open(values));
    },
    acquireKeyed,
    async close() {
      const live = [...entries];
      entries.clear();
      await Promise.all(live.map(([, entry]) => (clearTimeout(entry.idle), entry.connection.close())));
    },
  };
}
