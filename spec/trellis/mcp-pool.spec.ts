import type { McpConnection } from '../../lib/trellis/mcp-connection';
import { connectionPool } from '../../lib/trellis/mcp-pool';

function fakeConnection(name: string, closed: string[]): McpConnection {
  return {
    client: () => Promise.reject(new Error('not used')),
    discard: async () => true,
    lostSession: () => false,
    sessionId: () => undefined,
    close: async () => void closed.push(name),
  };
}

describe('connectionPool', () => {
  let closed: string[];
  let opened: Record<string, string>[];
  const shared = () => fakeConnection('shared', closed);
  const pool = (options: { maxConnections?: number; idleMs?: number } = {}) =>
    connectionPool({
      forwardHeaders: ['authorization', 'x-tenant'],
      shared: shared(),
      open: (forwarded) => (opened.push(forwarded), fakeConnection(Object.values(forwarded).join('+'), closed)),
      ...options,
    });

  beforeEach(() => {
    closed = [];
    opened = [];
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  it('uses the shared connection for a request without the forwarded headers', () => {
    const lease = pool().acquire({ accept: 'json' });
    lease.release();
    expect(opened).toEqual([]);
  });

  it('opens one connection per distinct set of forwarded values and reuses it', () => {
    const users = pool();
    const a1 = users.acquire({ authorization: 'A' });
    const a2 = users.acquire({ authorization: 'A' });
    const b = users.acquire({ authorization: 'A', 'x-tenant': 't2' });
    expect(a1.connection).toBe(a2.connection);
    expect(b.connection).not.toBe(a1.connection);
    expect(opened).toEqual([{ authorization: 'A' }, { authorization: 'A', 'x-tenant': 't2' }]);
  });

  it('joins a repeated header the way HTTP does', () => {
    pool().acquire({ 'x-tenant': ['t1', 't2'] });
    expect(opened).toEqual([{ 'x-tenant': 't1, t2' }]);
  });

  it('closes a connection once it has been idle for idleMs, not while it is in use', async () => {
    const users = pool({ idleMs: 1000 });
    const lease = users.acquire({ authorization: 'A' });
    await jest.advanceTimersByTimeAsync(5000);
    expect(closed).toEqual([]);
    lease.release();
    lease.release();
    await jest.advanceTimersByTimeAsync(999);
    expect(closed).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(closed).toEqual(['A']);
    users.acquire({ authorization: 'A' });
    expect(opened).toHaveLength(2);
  });

  it('past maxConnections, closes the least recently used idle connection', () => {
    const users = pool({ maxConnections: 2 });
    users.acquire({ authorization: 'A' }).release();
    users.acquire({ authorization: 'B' }).release();
    users.acquire({ authorization: 'A' }).release();
    users.acquire({ authorization: 'C' });
    expect(closed).toEqual(['B']);
  });

  it('never closes a connection under a call, even past maxConnections', () => {
    const users = pool({ maxConnections: 1 });
    users.acquire({ authorization: 'A' });
    users.acquire({ authorization: 'B' });
    expect(closed).toEqual([]);
    expect(opened).toHaveLength(2);
  });

  it('closes every connection on close()', async () => {
    const users = pool();
    users.acquire({ authorization: 'A' });
    users.acquire({ authorization: 'B' }).release();
    await users.close();
    expect(closed.sort()).toEqual(['A', 'B']);
    expect(jest.getTimerCount()).toBe(0);
  });
});
