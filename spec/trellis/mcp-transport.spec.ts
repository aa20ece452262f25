import http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { onLoopback } from '../../lib/testing/loopback';
import { reconnections, transportFor } from '../../lib/trellis/mcp-transport';
import { memoryLogger } from '../helpers/memory-logger';
import { eventually } from './helpers';

const never = () => () => undefined;

describe('reconnections', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reconnects a stream after its delay, unless cancelled first', () => {
    const streams = reconnections();
    const reconnected: string[] = [];
    streams.schedule(() => reconnected.push('a'), 1000);
    const cancel = streams.schedule(() => reconnected.push('b'), 1500);
    cancel();
    jest.advanceTimersByTime(1500);
    expect(reconnected).toEqual(['a']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('on stop, cancels every pending reconnection and schedules no later one', () => {
    const streams = reconnections();
    const reconnected: string[] = [];
    streams.schedule(() => reconnected.push('a'), 1000);
    streams.schedule(() => reconnected.push('b'), 1500);
    streams.stop();
    streams.schedule(() => reconnected.push('c'), 10);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(2000);
    expect(reconnected).toEqual([]);
  });
});

describe('transportFor', () => {
  it('speaks Streamable HTTP to a url, sending its headers', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = await onLoopback(
      http.createServer((req, res) => (seen.push(req.headers), req.resume(), res.writeHead(503).end())),
    );
    const transport = transportFor(
      { url: `${server.origin}/mcp`, headers: { authorization: 'Bearer service' } },
      'notes',
      memoryLogger().logger,
      never,
    );
    expect(transport).toBeInstanceOf(StreamableHTTPClientTransport);
    await expect(new Client({ name: 'mcp-transport.spec', version: '1' }).connect(transport)).rejects.toThrow();
    await server.close();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((headers) => headers.authorization)).toEqual(seen.map(() => 'Bearer service'));
  });

  it('runs a command, logging each line it writes to stderr as one line named after the Trellis, credentials redacted', async () => {
    const { logger, lines } = memoryLogger();
    const script =
      "console.error('notes-server: upstream Authorization: Bearer sk-live0123456789abcdefXYZ'); console.error('   '); console.error('notes-server: ready'); setInterval(() => {}, 1000);";
    const transport = transportFor({ command: process.execPath, args: ['-e', script] }, 'notes-stdio', logger, never);
    await transport.start();
    try {
      await eventually(() =>
        expect(lines).toEqual([
          {
            level: 'info',
            message: 'trellis stderr',
            trellis: 'notes-stdio',
            line: 'notes-server: upstream Authorization: Bearer [redacted]',
          },
          { level: 'info', message: 'trellis stderr', trellis: 'notes-stdio', line: 'notes-server: ready' },
        ]),
      );
    } finally {
      await transport.close();
    }
  });
});
