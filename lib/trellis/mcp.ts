import type { IncomingMessage } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { validator } from '../options/declaration';
import { redactedArgs } from '../shared/redact';
import { defaultLogger } from '../shared/logger';
import type { CallToolOptions, CallToolResult, Logger, McpServerAddress, Tool, Trellis } from '../types';
import { abortable } from '../shared/signals';
import type { McpConnection } from './mcp-connection';
import { mcpConnection } from './mcp-connection';
import { isSessionLost, trellisError } from './mcp-errors';
import { connectionPool, type ConnectionPool } from './mcp-pool';
import { paramHeaderDefinitions } from './mcp-param-headers';
import {
  mcpTrellisOptions,
  mcpTrellisSchema,
  type McpTrellisOptions,
  type ValidMcpTrellisOptions,
} from './mcp-options';
import { toolDefinitions } from './tool-definitions';
import { taskFollower, type TaskFollower } from './task-follower';
import { callWithInput, ELICITATION_2025, type Root } from './mcp-input';
import { askedDuringCall, type AskedDuringCall } from './mcp-asked-during-call';
import { AgentLoopError } from '../errors';
import { needsUser } from './oauth/consent';
import type { SignIns } from './oauth/sign-ins';
import { userTrellises, type UserTrellisOptions } from './oauth/user-trellis';

export type { McpTrellisOptions } from './mcp-options';

const validOptions = validator<ValidMcpTrellisOptions>('mcpTrellis', mcpTrellisSchema, mcpTrellisOptions);

/** The caller's signal bounds every call; the SDK's own 60 s default would cut tools allowed to run longer. */
const CALL_TIMEOUT_MS = 60 * 60 * 1000;
const LIST_TIMEOUT_MS = 30 * 1000;

function placeOf(options: McpTrellisOptions): string {
  // the arguments too (redacted): two servers started with `node` are told apart by their scripts
  if (!('url' in options)) return `'${[options.command, ...redactedArgs(options.args ?? [])].join(' ')}'`;
  const url = new URL(options.url);
  return `${url.origin}${url.pathname}`;
}

function toTool({ name, description, inputSchema, annotations, _meta }: Tool): Tool {
  return {
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema,
    ...(annotations ? { annotations } : {}),
    ...(_meta ? { _meta } : {}),
  };
}

/** The configured headers with the user's forwarded ones in place of any of the same name, whatever its case. */
function withForwarded(
  configured: Record<string, string> = {},
  forwarded: Record<string, string>,
): Record<string, string> {
  const kept = Object.entries(configured).filter(([name]) => !Object.hasOwn(forwarded, name.toLowerCase()));
  return { ...Object.fromEntries(kept), ...forwarded };
}

type HeaderDefinitions = ReturnType<typeof paramHeaderDefinitions>;

/** Every page of `tools/list` (the SDK walks them), fetched afresh: the cache here is the one that counts. */
async function listAll(client: Client, headers: HeaderDefinitions): Promise<Tool[]> {
  const listed = await client.listTools(undefined, { timeout: LIST_TIMEOUT_MS, cacheMode: 'bypass' });
  headers.remember(listed.tools);
  return (listed.tools as Tool[]).map(toTool);
}

/**
 * `roots`: what a server that asks for its roots is told (`trellis.mcp.roots`); `tasks`: follows a call answered
 * with a task, and takes the answers to a task that asked the person.
 */
function callOn(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  callOptions: CallToolOptions,
  headers: HeaderDefinitions,
  roots: readonly Root[],
  tasks: TaskFollower,
  asked: AskedDuringCall,
): Promise<CallToolResult> {
  const { signal, meta, onProgress, input } = callOptions;
  const onprogress =
    onProgress &&
    (({ progress, total, message }: { progress: number; total?: number; message?: string }) =>
      onProgress({ progress, total, message }));
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  const options = {
    signal,
    timeout: CALL_TIMEOUT_MS,
    allowInputRequired: true,
    ...(onprogress ? { onprogress } : {}),
    ...headers.of(name),
  };
  return callWithInput(
    (answers) =>
      answers?.taskId === undefined
        ? asked.call(
            client,
            name,
            (own) =>
              client
                .callTool({ ...params, ...answers }, { ...options, signal: own })
                .then((result) => tasks.follow(client, result, callOptions)),
            { signal, input: answers, ttlSec: callOptions.inputTtlSec },
          )
        : tasks.resume(client, { ...answers, taskId: answers.taskId }, callOptions),
    input,
    roots,
  );
}

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
      "mcpTrellis: option 'oauth' needs the callback agentLoop serves at its redirectUrl; give the server to agentLoop instead: trellis: { mcp: { url, oauth: { redirectUrl } } }.",
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

type WithClient = <T>(
  use: (client: Client) => Promise<T>,
  signal?: AbortSignal,
  connection?: McpConnection,
) => Promise<T>;

/**
 * Runs `use` on the session (of `shared` unless told). When the server no longer knows it, or it was dropped under
 * `use` because the server lost it (the call was in flight), `use` is retried once on the next session: every call in
 * flight then waits for the same single re-initialise. A server that went away is no lost session: its calls fail as
 * they are.
 */
function retryingOnLostSession(shared: McpConnection, logger: Logger, trellis: string): WithClient {
  return async function withClient<T>(
    use: (client: Client) => Promise<T>,
    signal?: AbortSignal,
    connection: McpConnection = shared,
  ): Promise<T> {
    const client = await abortable(connection.client(), signal);
    try {
      return await use(client);
    } catch (error) {
      if (signal?.aborted || !(isSessionLost(error) || connection.lostSession(client))) throw error;
      if (await connection.discard(client, true)) logger.info('trellis session lost; re-initialising', { trellis });
      return use(await abortable(connection.client(), signal));
    }
  };
}

/** `work`'s failures as the trellis errors that name `target`, the caller's signal bounding the wait. */
function readableAt(target: string) {
  return async function readable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await abortable(work, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw trellisError(error, target);
    }
  };
}

/**
 * The server's tool list, kept `ttlMs`; concurrent listings share one `list()`, and a list that changed while it was
 * being listed is not kept.
 */
function sharedToolList(ttlMs: number, list: () => Promise<Tool[]>) {
  let cache: { tools: Tool[]; expiresAt: number } | undefined;
  let listing: Promise<Tool[]> | undefined;
  let generation = 0;

  async function refresh(): Promise<Tool[]> {
    const startedAt = generation;
    const tools = await list();
    if (startedAt === generation) cache = { tools, expiresAt: Date.now() + ttlMs };
    return tools;
  }

  return {
    /** the cached tools while they are fresh */
    fresh: (): Tool[] | undefined => (cache && Date.now() < cache.expiresAt ? cache.tools : undefined),
    /** the listing under way, or a new one */
    listing: (): Promise<Tool[]> => (listing ??= refresh().finally(() => (listing = undefined))),
    changed(): void {
      generation++;
      cache = undefined;
    },
  };
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
