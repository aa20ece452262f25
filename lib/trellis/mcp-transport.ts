import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/client';
import { redacted } from '../shared/redact';
import { mcpClient, mcpStdio } from './mcp-sdk';
import type { Logger, McpServerAddress } from '../types';

export type { McpServerAddress };

/**
 * The SSE streams' reconnection timers. The transport keeps a handle on its last one only, so its close() misses the
 * others, which then hold the process (1 s, 1.5 s...) after close: stop() cancels them all, and any later one.
 */
export function reconnections() {
  const pending = new Set<NodeJS.Timeout>();
  let stopped = false;
  return {
    schedule(reconnect: () => void, delayMs: number): () => void {
      if (stopped) return () => undefined;
      const timer = setTimeout(function reconnectStream() {
        pending.delete(timer);
        reconnect();
      }, delayMs);
      pending.add(timer);
      return () => void (clearTimeout(timer), pending.delete(timer));
    },
    stop(): void {
      stopped = true;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
  };
}

/** Each line a stdio server writes to stderr becomes one structured log line, named after the Trellis. */
function logStderr(stream: Readable | null, trellis: string, logger: Logger): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', function stderrLine(line) {
    if (line.trim()) logger.info('trellis stderr', { trellis, line: redacted(line) });
  });
}

export function transportFor(
  address: McpServerAddress,
  trellis: string,
  logger: Logger,
  reconnectionScheduler: (reconnect: () => void, delayMs: number) => () => void,
): Transport {
  if ('url' in address) {
    // a 403 for want of scope comes back to the sign-in, which asks the person (the SDK would open a browser)
    const auth = address.authProvider
      ? { authProvider: address.authProvider, onInsufficientScope: 'throw' as const }
      : {};
    return new (mcpClient().StreamableHTTPClientTransport)(new URL(address.url), {
      requestInit: { headers: address.headers },
      reconnectionScheduler,
      ...auth,
    });
  }
  const transport = new (mcpStdio().StdioClientTransport)({
    command: address.command,
    args: address.args,
    env: address.env,
    stderr: 'pipe',
  });
  logStderr(transport.stderr as Readable | null, trellis, logger);
  return transport;
}
