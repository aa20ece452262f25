import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { webRequest } from '../../fixtures/mcp-server-v2';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';

/** A v2-SDK server whose `lookup` tool marks `region` and `tier` `x-mcp-header`: every `tools/call`'s headers kept. */
async function headerServer(): Promise<{ url: string; calls: Record<string, string>[]; close(): Promise<void> }> {
  const calls: Record<string, string>[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'param-headers', version: '1.0.0' });
    const inputSchema = z.object({
      region: z.string().meta({ 'x-mcp-header': 'Region' }),
      tier: z.number().int().optional().meta({ 'x-mcp-header': 'Tier' }),
      query: z.string(),
    });
    server.registerTool('lookup', { description: 'Looks up.', inputSchema }, async () => ({
      content: [{ type: 'text' as const, text: 'found' }],
    }));
    server.registerTool(
      'plain',
      { description: 'No headers.', inputSchema: z.object({ q: z.string() }) },
      async () => ({
        content: [{ type: 'text' as const, text: 'plain' }],
      }),
    );
    return server;
  });
  let origin = '';
  const httpServer = http.createServer((req, res) => {
    void (async () => {
      const request = await webRequest(req, origin, new AbortController().signal);
      const body =
        request.method === 'POST'
          ? await request
              .clone()
              .json()
              .catch(() => undefined)
          : undefined;
      if ((body as { method?: string } | undefined)?.method === 'tools/call') {
        calls.push(Object.fromEntries([...request.headers].filter(([name]) => name.startsWith('mcp-param-'))));
      }
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })();
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    calls,
    async close() {
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

describe("mcpTrellis' Mcp-Param-* headers (SEP-2243)", () => {
  let server: Awaited<ReturnType<typeof headerServer>>;
  let trellis: Trellis;
  const call = (name: string, args: Record<string, unknown>, headers?: Record<string, string>) =>
    trellis.callTool(name, args, { signal: new AbortController().signal, ...(headers ? { headers } : {}) });

  beforeEach(async () => {
    server = await headerServer();
    trellis = mcpTrellis({ url: server.url, logger: memoryLogger().logger, forwardHeaders: ['x-user'] });
  });
  afterEach(async () => {
    await trellis.close!();
    await server.close();
  });

  it('mirrors the arguments the listed definition marks into headers on the first call, unsafe values in Base64', async () => {
    await trellis.listTools();
    await call('lookup', { region: 'us-west1', tier: 2, query: 'q' });
    await call('lookup', { region: 'Zürich ', query: 'q' });
    await call('plain', { q: 'x' });
    expect(server.calls).toEqual([
      { 'mcp-param-region': 'us-west1', 'mcp-param-tier': '2' },
      { 'mcp-param-region': `=?base64?${Buffer.from('Zürich ').toString('base64')}?=` },
      {},
    ]);
  });

  it("sends them on a connection that never listed (a user's forwarded headers), from the shared listing", async () => {
    await trellis.listTools();
    await call('lookup', { region: 'eu-north1', query: 'q' }, { 'x-user': 'ann' });
    expect(server.calls).toEqual([{ 'mcp-param-region': 'eu-north1' }]);
  });
});
