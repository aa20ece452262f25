import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Trellis } from '../../lib/types';
import { javascript } from '../helpers/javascript';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { eventually } from './helpers';

const KEY = 'sk-live0123456789abcdefXYZ';
const STDIO_SERVER = path.join(__dirname, '../../fixtures/mcp-stdio-server.ts');

describe("mcpTrellis: a server's own words carry no credentials into logs or tool errors", () => {
  const closers: (() => Promise<unknown>)[] = [];
  let logger: ReturnType<typeof memoryLogger>['logger'];
  let lines: LogLine[];
  beforeEach(() => {
    ({ logger, lines } = memoryLogger());
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  const trellis = (options: Parameters<typeof mcpTrellis>[0]): Trellis => {
    const made = mcpTrellis({ logger, ...options });
    closers.push(() => made.close!());
    return made;
  };

  it('redacts the error text of a server that reflects the credentials it was sent', async () => {
    const server = http.createServer(function reflecting(req, res) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: `invalid credentials: ${req.headers.authorization}` },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;

    await expect(trellis({ url, headers: { authorization: `Bearer ${KEY}` } }).listTools()).rejects.toHaveProperty(
      'message',
      `Trellis at ${url} answered HTTP 401 (invalid credentials: Bearer [redacted])`,
    );
  });

  it('redacts the stderr lines of a stdio server', async () => {
    const stdio = trellis({ command: process.execPath, args: [javascript(STDIO_SERVER), '--api-key', KEY] });
    await stdio.listTools();
    await eventually(() =>
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'info',
          message: 'trellis stderr',
          line: 'mcp-stdio-server: started with --api-key [redacted]',
        }),
      ),
    );
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });
});
