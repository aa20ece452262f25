import type { IncomingMessage } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { validator } from '../options/declaration';
import { defaultLogger } from '../shared/logger';
import type { CallToolOptions, McpServerAddress, Trellis } from '../types';
import type { McpConnection } from './mcp-connection';
import { mcpConnection } from './mcp-connection';
import { readableAt } from './mcp-errors';
import { retryingOnLostSession, type WithClient } from './mcp-session-lost';
import { connectionPool, type ConnectionPool } from './mcp-pool';
import { paramHeaderDefinitions } from './mcp-param-headers';
import { callOn, listAll, placeOf, withForwarded } from './mcp-calls';
import { sharedToolList } from './tool-list';
import {
  mcpTrellisOptions,
  mcpTrellisSchema,
  type McpTrellisOptions,
  type ValidMcpTrellisOptions,
} from './mcp-options';
import { toolDefinitions } from './tool-definitions';
import { taskFollower, type TaskFollower } from './task-follower';
import { ELICITATION_2025 } from './mcp-input';
import { askedDuringCall } from './mcp-asked-during-call';
import { AgentLoopError } from '../errors';
import { needsUser } from './oauth/consent';
import type { SignIns } from './oauth/sign-ins';
import { userTrellises, type UserTrellisOptions } from './oauth/user-trellis';

export type { McpTrellisOptions } from './mcp-options';

const validOptions = validator<ValidMcpTrellisOptions>('mcpTrellis', mcpTrellisSchema, mcpTrellisOptions);

/** A Trellis on an MCP server, over Streamable HTTP (`url`) or stdio (`command`), through the official SDK client. */
export function mcpTrellis(options: McpTrellisOptions): Trellis {
  return openMcpTrellis(validOptions(options));
}

/** `oauth` gives each user their own token: no forwarded header of the client's, and agentLoop's callback. */
function refuseOAuthMisuse(options: ValidMcpTrellisOptions, signIns: SignIns | undefined): void {
  const oauth = 'url' in options ? options.oauth : undefined;
  if (oauth && 'url' in options && options.forwardHeaders) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      "mcpTrellis: options 'oauth' and 'forwardHeaders' of one server exclude each other: with oauth each user's " +
        "calls carry their own token, never a header of the client's; leave forwardHeaders out.",
    );
  }
  if (oauth && !signIns) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_OAUTH_NEEDS_AGENT_LOOP',
      "mcpTrellis: option 'oauth' needs the callback agentLoop serves at its redirectUrl; " +
        'give the server to agentLoop instead: trellis: { mcp: { url, oauth: { redirectUrl } } }.',
    );
  }
}

/** The shared connection, and one of its own for each set of forwarded headers (`forwardHeaders`). */
function forwardingPool(
  options: ValidMcpTrellisOptions,
  shared: McpConnection,
  connectionTo: (address: McpServerAddress) => McpConnection,
): ConnectionPool {
  return connectionPool({
    forwardHeaders: ('url' in options && options.forwardHeaders ? options.forwardHeaders : []).map((name) =>
      name.toLowerCase(),
    ),
    shared,
    open: (forwarded) =>
      connectionTo({ ...options, headers: withForwarded('url' in options ? options.headers : undefined, forwarded) }),
  });
}

interface SharedTrellisParts {
  /** each signed-in user's own Trellis (`oauth`): the shared one then serves no one */
  forUser: ((req: IncomingMessage) => Trellis | undefined) | undefined;
  pool: ConnectionPool;
  shared: McpConnection;
  tasks: TaskFollower;
  toolList: ReturnType<typeof sharedToolList>;
  withClient: WithClient;
  readable: ReturnType<typeof readableAt>;
  callFollowing: UserTrellisOptions['callOn'];
}

/** The Trellis of the server's shared connection (and of those `forwardHeaders` opens). */
function sharedTrellis(parts: SharedTrellisParts): Trellis {
  const { forUser, pool, shared, tasks, toolList, withClient, readable, callFollowing } = parts;
  const self: Trellis = {
    ...(forUser ? { forRequest: (req) => forUser(req) ?? self } : {}),
    async listTools(signal) {
      signal?.throwIfAborted();
      if (forUser) throw needsUser('tools/list');
      return toolList.fresh() ?? readable(toolList.listing(), signal);
    },
    async callTool(name, args, callOptions) {
      const { signal } = callOptions;
      signal.throwIfAborted();
      if (forUser) throw needsUser(name);
      const lease = pool.acquire(callOptions.headers);
      try {
        return await readable(
          withClient((client) => callFollowing(client, name, args, callOptions), signal, lease.connection),
          signal,
        );
      } finally {
        lease.release();
      }
    },
    async cancelTask(taskId, { headers }) {
      if (forUser) return;
      const lease = pool.acquire(headers);
      try {
        await withClient((client) => tasks.cancel(client, taskId), undefined, lease.connection);
      } finally {
        lease.release();
      }
    },
    mcpSession: () => shared.sessionId(),
    async close() {
      await tasks.settled();
      await Promise.all([shared.close(), pool.close()]);
    },
  };
  return self;
}

/** `mcpTrellis` of options already validated (agentLoop's `trellis`); `signIns`: agentLoop's OAuth, for `oauth`. */
export function openMcpTrellis(options: ValidMcpTrellisOptions, signIns?: SignIns): Trellis {
  refuseOAuthMisuse(options, signIns);
  const target = placeOf(options);
  const roots = options.roots ?? [];
  const trellis = options.name ?? target;
  const logger = options.logger ?? defaultLogger();
  const ttlMs = options.listTtlSec * 1000;
  const settle = toolDefinitions({ windowMs: ttlMs, logger, trellis });
  const tasks = taskFollower();
  const headers = paramHeaderDefinitions();
  const asked = askedDuringCall(ELICITATION_2025);
  const listOn = (client: Client) => listAll(client, headers);
  const callFollowing = (client: Client, name: string, args: Record<string, unknown>, callOptions: CallToolOptions) =>
    callOn(client, name, args, callOptions, headers, roots, tasks, asked);
  const toolList = sharedToolList(ttlMs, async () => settle(await withClient(listOn)));
  const connectionTo = (address: McpServerAddress) =>
    mcpConnection({ address, target, trellis, logger, onToolsChanged: toolList.changed, roots, elicit: asked.elicit });
  const shared = connectionTo(options);
  const pool = forwardingPool(options, shared, connectionTo);
  const withClient = retryingOnLostSession(shared, logger, trellis);
  const readable = readableAt(target);
  const forUser =
    'url' in options &&
    options.oauth &&
    userTrellises({
      signIn: signIns!.add(trellis, options.url, options.oauth),
      user: options.oauth.user,
      pool,
      connect: (authProvider) => connectionTo({ ...options, authProvider }),
      withClient,
      readable,
      listAll: listOn,
      callOn: callFollowing,
      cancelOn: tasks.cancel,
      listTtlMs: ttlMs,
    });

  return sharedTrellis({
    forUser: forUser || undefined,
    pool,
    shared,
    tasks,
    toolList,
    withClient,
    readable,
    callFollowing,
  });
}
