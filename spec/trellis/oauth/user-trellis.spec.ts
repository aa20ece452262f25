import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { userTrellises, type UserTrellisOptions } from '../../../lib/trellis/oauth/user-trellis';
import { ServerSignIn } from '../../../lib/trellis/oauth/sign-in';
import { MemoryStore } from '../../../lib/store/memory-store';
import { TokenVault } from '../../../lib/trellis/oauth/vault';
import { connectionPool } from '../../../lib/trellis/mcp-pool';
import type { McpConnection } from '../../../lib/trellis/mcp-connection';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

function setUp() {
  const key = randomBytes(32);
  const store = new MemoryStore();
  const signIn = new ServerSignIn(
    { server: 'notes', options: { redirectUrl: 'http://127.0.0.1:9/cb' }, vault: new TokenVault(key, store), key },
    'http://127.0.0.1:9/mcp',
    store,
  );
  const opened: string[] = [];
  const cancelled: string[] = [];
  const connection = { close: async () => undefined } as unknown as McpConnection;
  const options: UserTrellisOptions = {
    signIn,
    user: undefined,
    pool: connectionPool({ forwardHeaders: [], shared: connection, open: () => connection }),
    connect: () => (opened.push('connection'), connection),
    withClient: async (use) => use({} as never),
    readable: (work) => work,
    listAll: async () => [{ name: 'whoami', inputSchema: { type: 'object' } }],
    callOn: async (_client, name) => ({ content: [{ type: 'text', text: `ran ${name}` }] }),
    cancelOn: async (_client, taskId) => void cancelled.push(taskId),
    listTtlMs: 60_000,
  };
  return { forRequest: userTrellises(options), opened, cancelled };
}

describe('userTrellises', () => {
  it('has no Trellis for a request that names no user', () => {
    expect(setUp().forRequest(request({}))).toBeUndefined();
  });

  it('gives each user a Trellis of their own, the same one on each request, on one connection', async () => {
    const { forRequest, opened } = setUp();
    const alice = forRequest(request({ authorization: 'Bearer alice-0123456789' }))!;
    expect(forRequest(request({ authorization: 'Bearer alice-0123456789' }))).toBe(alice);
    expect(forRequest(request({ authorization: 'Bearer bob-0123456789' }))).not.toBe(alice);
    expect(await alice.listTools()).toEqual([{ name: 'whoami', inputSchema: { type: 'object' } }]);
    expect(await alice.callTool('whoami', {}, { signal: new AbortController().signal })).toEqual({
      content: [{ type: 'text', text: 'ran whoami' }],
    });
    expect(opened).toEqual(['connection']);
  });

  it("cancels a user's task on that user's connection", async () => {
    const { forRequest, opened, cancelled } = setUp();
    const alice = forRequest(request({ authorization: 'Bearer alice-0123456789' }))!;
    await alice.cancelTask!('task-1', {});
    expect(cancelled).toEqual(['task-1']);
    expect(opened).toEqual(['connection']);
  });
});
