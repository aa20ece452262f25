import type { Client } from '@modelcontextprotocol/client';
import { settledWithin } from '../shared/signals';
import type { Logger } from '../types';
import { isSessionLost, trellisError } from './mcp-errors';
import { mcpClient } from './mcp-sdk';
import { acceptTasks, tasksCapabilities } from './tasks';
import { ELICITATION_2025, INPUT_CAPABILITIES, type Root } from './mcp-input';
import { reconnections, transportFor, type McpServerAddress } from './mcp-transport';

export interface McpConnectionOptions {
  address: McpServerAddress;
  /** where the server is, for error messages */
  target: string;
  trellis: string;
  logger: Logger;
  onToolsChanged(): void;
  /** what a 2025 server that asks for its roots during a call is told (`trellis.mcp.roots`) */
  roots?: readonly Root[];
  /** a 2025 server's question to the person during a call (`elicitation/create`) */
  elicit?(client: Client, params: Record<string, unknown>): Promise<unknown>;
}

export interface McpConnection {
  /** the connected client, connecting on first use; concurrent first uses share one connect */
  client(): Promise<Client>;
  /**
   * drops `client` (if it is still the current one) so that the next use connects afresh; the calls still in flight
   * on it fail. `sessionLost`: because the server no longer knows its session. True for the first discard of
   * `client`, false for those that follow.
   */
  discard(client: Client, sessionLost?: boolean): Promise<boolean>;
  /** whether `client` was dropped because the server lost its session: a call that failed on it may be retried */
  lostSession(client: Client): boolean;
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
/** How long `connect()` waits for `server/discover` before taking a stdio server for a 2025-era one. */
const DISCOVER_TIMEOUT_MS = 10_000;
const TERMINATE_TIMEOUT_MS = 1000;
const STREAM_DROPPED = /SSE stream|reconnection attempts/;

/**
 * A client of the negotiated era that answers a 2025 server's requests during a call: its roots are answered, a
 * question goes to the person (`elicit`) while the call waits.
 */
function sdkClient(onToolsChanged: () => void, roots: readonly Root[], elicit: McpConnectionOptions['elicit']): Client {
  const client = new (mcpClient().Client)(CLIENT_INFO, {
    versionNegotiation: { mode: 'auto', probe: { timeoutMs: DISCOVER_TIMEOUT_MS } },
    listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } },
    // a tool's questions go to the person through the loop, across requests: never answered inside the call
    capabilities: { ...INPUT_CAPABILITIES, ...tasksCapabilities },
    inputRequired: { autoFulfill: false },
  });
  client.setRequestHandler('roots/list', () => ({ roots: roots.map((root) => ({ ...root })) }));
  client.setRequestHandler('elicitation/create', async (request) => {
    if (!elicit) throw new Error(ELICITATION_2025);
    return (await elicit(client, request.params as Record<string, unknown>)) as never;
  });
  return client;
}

interface WatchOptions {
  trellis: string;
  target: string;
  logger: Logger;
  isClosed(): boolean;
  discard(client: Client, sessionLost: boolean): Promise<boolean>;
}

/**
 * Logs a client's transport errors. A dropped response stream leaves calls in flight waiting forever (the SDK does
 * not fail them), so the server is asked whether the session is still alive; if not, discarding the client fails
 * them with "connection lost".
 */
function droppedStreamWatch({ trellis, target, logger, isClosed, discard }: WatchOptions): (client: Client) => void {
  const probing = new WeakSet<Client>();
  function probe(client: Client): void {
    if (isClosed() || probing.has(client)) return;
    probing.add(client);
    client.ping({ timeout: PROBE_TIMEOUT_MS }).then(
      () => probing.delete(client),
      function sessionGone(error: unknown) {
        if (isClosed()) return;
        logger.warn('trellis connection lost', { trellis, reason: trellisError(error, target).message });
        void discard(client, isSessionLost(error));
      },
    );
  }
  return function watchStream(client) {
    client.onerror = (error) => {
      if (isClosed()) return;
      logger.debug('trellis transport error', { trellis, reason: error.message });
      if (STREAM_DROPPED.test(error.message)) probe(client);
    };
  };
}

/** Ends a Streamable HTTP session at the server (within a bound), then closes the client. */
async function endSession(connected: Client): Promise<void> {
  if (connected.transport instanceof mcpClient().StreamableHTTPClientTransport) {
    await settledWithin(connected.transport.terminateSession(), TERMINATE_TIMEOUT_MS);
  }
  await connected.close();
}

function sessionIdOf(client: Client | undefined): string | undefined {
  const transport = client?.transport;
  return transport instanceof mcpClient().StreamableHTTPClientTransport ? transport.sessionId : undefined;
}

/**
 * One MCP client session at a time, opened lazily and replaced when it is lost. The client negotiates the
 * protocol era: 2026-07-28 with a server that answers `server/discover`, the 2025 `initialize` handshake otherwise.
 */
export function mcpConnection({
  address,
  target,
  trellis,
  logger,
  onToolsChanged,
  roots = [],
  elicit,
}: McpConnectionOptions): McpConnection {
  let current: Attempt | undefined;
  let closed = false;
  const dropped = new WeakSet<Client>();
  const lost = new WeakSet<Client>();
  const streams = reconnections();
  const watchStream = droppedStreamWatch({ trellis, target, logger, isClosed: () => closed, discard });

  function forget(client: Client): void {
    if (current?.client === client) current = undefined;
  }

  async function discard(client: Client, sessionLost = false): Promise<boolean> {
    if (sessionLost) lost.add(client);
    if (dropped.has(client)) return false;
    dropped.add(client);
    forget(client);
    await client.close().catch(() => undefined);
    return true;
  }

  async function connect(): Promise<Client> {
    const client = sdkClient(onToolsChanged, roots, elicit);
    client.onclose = () => forget(client);
    watchStream(client);
    await client.connect(transportFor(address, trellis, logger, streams.schedule));
    acceptTasks(client.transport!);
    logger.debug('trellis connected', { trellis, protocolVersion: client.getNegotiatedProtocolVersion() });
    return client;
  }

  function client(): Promise<Client> {
    if (closed) return Promise.reject(new Error('this Trellis is closed'));
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
    closed = true;
    streams.stop();
    const closing = current;
    current = undefined;
    const connected = await closing?.connecting.catch(() => undefined);
    if (connected) await endSession(connected);
  }

  const sessionId = () => sessionIdOf(current?.client);
  return { client, discard, lostSession: (client) => lost.has(client), sessionId, close };
}
