import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AgentLoopError } from '../errors';
import { defaultLogger } from '../logger';
import type { CallToolResult, Logger, McpServerAddress, Tool, Trellis } from '../types';
import { abortable } from './abortable';
import { mcpConnection } from './mcp-connection';
import { isSessionLost, trellisError } from './mcp-errors';
import { toolDefinitions } from './tool-definitions';

export type McpTrellisOptions = McpServerAddress & {
  /** how long `tools/list` is cached, and how long a changed tool definition waits before it is adopted */
  listTtlSec?: number;
  logger?: Logger;
  /** names this Trellis in logs */
  name?: string;
};

/** The caller's signal bounds every call; the SDK's own 60 s default would cut tools allowed to run longer. */
const CALL_TIMEOUT_MS = 60 * 60 * 1000;
const LIST_TIMEOUT_MS = 30 * 1000;
const MAX_LIST_PAGES = 100;

function placeOf(options: McpTrellisOptions): string {
  if (!('url' in options)) return `'${options.command}'`;
  const url = URL.canParse(options.url) ? new URL(options.url) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new AgentLoopError('ERR_AGENT_LOOP_INVALID_OPTION', `mcpTrellis: url '${options.url}' is not an http(s) URL; expected e.g. 'http://127.0.0.1:4000/mcp'.`);
  }
  return `${url.origin}${url.pathname}`;
}

function toTool({ name, description, inputSchema, _meta }: Tool): Tool {
  return { name, ...(description === undefined ? {} : { description }), inputSchema, ...(_meta ? { _meta } : {}) };
}

async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: LIST_TIMEOUT_MS });
    tools.push(...listed.tools.map(toTool));
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** A Trellis on an MCP server, over Streamable HTTP (`url`) or stdio (`command`), through the official SDK client. */
export function mcpTrellis(options: McpTrellisOptions): Trellis {
  if (!('url' in options) && !('command' in options)) {
    throw new AgentLoopError('ERR_AGENT_LOOP_INVALID_OPTION', "mcpTrellis: give a `url` ({ url: 'http://127.0.0.1:4000/mcp' }) or a `command` ({ command: 'node', args: ['server.js'] }).");
  }
  const target = placeOf(options);
  const trellis = options.name ?? target;
  const logger = options.logger ?? defaultLogger();
  const ttlMs = (options.listTtlSec ?? 60) * 1000;
  const settle = toolDefinitions({ windowMs: ttlMs, logger, trellis });
  let cache: { tools: Tool[]; expiresAt: number } | undefined;
  let listing: Promise<Tool[]> | undefined;
  let generation = 0;

  const connection = mcpConnection({
    address: options,
    target,
    trellis,
    logger,
    onToolsChanged() {
      generation++;
      cache = undefined;
    },
  });

  /** Runs `use` on the session; a session the server no longer knows is re-initialised once and `use` retried. */
  async function withClient<T>(use: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const client = await abortable(connection.client(), signal);
    try {
      return await use(client);
    } catch (error) {
      if (!isSessionLost(error) || signal?.aborted) throw error;
      logger.info('trellis session lost; re-initialising', { trellis });
      await connection.discard(client);
      return use(await abortable(connection.client(), signal));
    }
  }

  async function refresh(): Promise<Tool[]> {
    const startedAt = generation;
    const tools = settle(await withClient(listAll));
    if (startedAt === generation) cache = { tools, expiresAt: Date.now() + ttlMs };
    return tools;
  }

  async function readable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await abortable(work, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw trellisError(error, target);
    }
  }

  return {
    async listTools(signal) {
      signal?.throwIfAborted();
      if (cache && Date.now() < cache.expiresAt) return cache.tools;
      listing ??= refresh().finally(() => (listing = undefined));
      return readable(listing, signal);
    },
    async callTool(name, args, { signal, meta }) {
      signal.throwIfAborted();
      const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
      const call = (client: Client) => client.callTool(params, undefined, { signal, timeout: CALL_TIMEOUT_MS });
      return readable(withClient(call, signal), signal) as Promise<CallToolResult>;
    },
    mcpSession: () => connection.sessionId(),
    close: () => connection.close(),
  };
}
