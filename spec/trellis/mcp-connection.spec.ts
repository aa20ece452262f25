import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { mcpConnection, type McpConnection } from '../../lib/trellis/mcp-connection';
import { memoryLogger } from '../helpers/memory-logger';
import { eventually } from './helpers';

describe('mcpConnection', () => {
  let server: McpFixtureServer;
  let connection: McpConnection;
  let toolsChanged: number;

  beforeEach(async () => {
    server = await startMcpServer();
    toolsChanged = 0;
    connection = mcpConnection({
      address: { url: server.url },
      target: server.url,
      trellis: 'notes',
      logger: memoryLogger().logger,
      onToolsChanged: () => toolsChanged++,
    });
  });
  afterEach(async () => {
    await connection.close();
    await server.close();
  });

  const initializes = () => server.methods.filter((method) => method === 'initialize').length;

  it('connects on first use, once for uses that come together', async () => {
    expect(server.methods).toEqual([]);
    const [first, second] = await Promise.all([connection.client(), connection.client()]);
    expect(first).toBe(second);
    expect(await connection.client()).toBe(first);
    expect(initializes()).toBe(1);
  });

  it("knows the session's id once connected", async () => {
    expect(connection.sessionId()).toBeUndefined();
    const client = await connection.client();
    await client.listTools();
    expect(connection.sessionId()).toEqual(expect.any(String));
    expect(server.headers.at(-1)!['mcp-session-id']).toBe(connection.sessionId());
  });

  it('connects afresh after a discard, which only the first discard of a client does', async () => {
    const client = await connection.client();
    await expect(connection.discard(client)).resolves.toBe(true);
    await expect(connection.discard(client, true)).resolves.toBe(false);
    const next = await connection.client();
    expect(next).not.toBe(client);
    expect(initializes()).toBe(2);
  });

  it('remembers which clients were dropped because the server lost their session', async () => {
    const lost = await connection.client();
    await connection.discard(lost, true);
    const dropped = await connection.client();
    await connection.discard(dropped);
    expect([connection.lostSession(lost), connection.lostSession(dropped)]).toEqual([true, false]);
  });

  it('does not keep a connect that failed: the next use tries again', async () => {
    server.failWith(503);
    await expect(connection.client()).rejects.toThrow();
    server.failWith(undefined);
    const client = await connection.client();
    await expect(client.listTools()).resolves.toEqual(expect.objectContaining({ tools: expect.any(Array) }));
  });

  it("says when the server's tools changed", async () => {
    const client = await connection.client();
    await client.listTools();
    server.setTool({ name: 'notes_archive', description: 'Archive a note.', handler: () => ({ content: [] }) });
    await eventually(() => expect(toolsChanged).toBe(1));
  });

  it('ends the session on close, and refuses uses after it', async () => {
    const client = await connection.client();
    await client.listTools();
    const session = connection.sessionId()!;
    await connection.close();
    const afterwards = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(afterwards.status).toBe(404);
    await expect(connection.client()).rejects.toThrow('this Trellis is closed');
  });
});
