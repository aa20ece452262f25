import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, McpServerAddress } from '../types';
import { trellisError } from './mcp-errors';

export interface McpConnectionOptions {
  address: McpServerAddress;
  /** where the server is, for error messages */
  target: string;
  trellis: string;
  logger: Logger;
  onToolsChanged(): void;
}

export interface McpConnection {
  /** the connected client, connecting on first use; concurrent first uses share one connect */
  client(): Promise<Client>;
  /** drops `client` (if it is still the current one) so that the next use connects afresh */
  discard(client: Client): Promise<void>;
  /** the Streamable HTTP session's id, once connected; stdio has none */
  sessionId(): string | undefined;
  close(): Promise<void>;
}

interface Attempt {
  connecting: Promise<Client>;
  client?: Client;
}

const CLIENT_INFO = { name: 'express-agent-loop', version: '0.1.0' };
const PROBE_TIMEOUT_MS = 5000;
const TERMINATE_TIMEOUT_MS = 1000;
const STREAM_DROPPED = /SSE stream|reconnection attempts/;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function transportFor(address: McpServerAddress): Transport {
  if ('url' in address) {
    return new StreamableHTTPClientTransport(new URL(address.url), { requestInit: { headers: address.headers } });
  }
  return new StdioClientTransport({ command: address.command, args: address.args, env: address.env });
}

/** One MCP client session at a time, opened lazily and replaced when it is lost. */
export function mcpConnection({ address, target, trellis, logger, onToolsChanged }: McpConnectionOptions): McpConnection {
  let current: Attempt | undefined;
  const probing = new WeakSet<Client>();

  function forget(client: Client): void {
    if (current?.client === client) current = undefined;
  }

  async function discard(client: Client): Promise<void> {
    forget(client);
    await client.close().catch(() => undefined);
  }

  /**
   * A dropped response stream leaves calls in flight waiting forever (the SDK does not fail them), so ask the
   * server whether the session is still alive; if not, closing the client fails them with "connection lost".
   */
  function probe(client: Client): void {
    if (probing.has(client)) return;
    probing.add(client);
    client.ping({ timeout: PROBE_TIMEOUT_MS }).then(
      () => probing.delete(client),
      function sessionGone(error: unknown) {
        logger.warn('trellis connection lost', { trellis, reason: trellisError(error, target).message });
        return discard(client);
      },
    );
  }

  async function connect(): Promise<Client> {
    const client = new Client(CLIENT_INFO);
    client.setNotificationHandler(ToolListChangedNotificationSchema, onToolsChanged);
    client.onclose = () => forget(client);
    client.onerror = (error) => {
      logger.debug('trellis transport error', { trellis, reason: error.message });
      if (STREAM_DROPPED.test(error.message)) probe(client);
    };
    await client.connect(transportFor(address));
    logger.debug('trellis connected', { trellis });
    return client;
  }

  function client(): Promise<Client> {
    if (!current) {
      const attempt: Attempt = { connecting: connect() };
      attempt.connecting.then(
        (connected) => (attempt.client = connected),
        () => current === attempt && (current = undefined),
      );
      current = attempt;
    }
    return current.connecting;
  }

  async function close(): Promise<void> {
    const closing = current;
    current = undefined;
    const connected = await closing?.connecting.catch(() => undefined);
    if (!connected) return;
    if (connected.transport instanceof StreamableHTTPClientTransport) {
      await Promise.race([connected.transport.terminateSession().catch(() => undefined), delay(TERMINATE_TIMEOUT_MS)]);
    }
    await connected.close();
  }

  function sessionId(): string | undefined {
    const transport = current?.client?.transport;
    return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
  }

  return { client, discard, sessionId, close };
}
