import type { IncomingMessage } from 'node:http';
import type { AuthProvider, Client } from '@modelcontextprotocol/client';
import type { CallToolOptions, CallToolResult, Tool, Trellis } from '../../types';
import type { McpConnection } from '../mcp-connection';
import type { ConnectionPool } from '../mcp-pool';
import { mcpClient } from '../mcp-sdk';
import type { OAuthUser } from './options';
import type { ServerSignIn } from './sign-in';
import { userOf } from './user';
import { whoOf } from './connect';

export interface UserTrellisOptions {
  signIn: ServerSignIn;
  user: OAuthUser | undefined;
  pool: ConnectionPool;
  connect(authProvider: AuthProvider): McpConnection;
  /** runs `use` on the connection's client, retrying once on a lost session */
  withClient<T>(
    use: (client: Client) => Promise<T>,
    signal: AbortSignal | undefined,
    connection: McpConnection,
  ): Promise<T>;
  /** errors made readable, the caller's signal bounding the wait */
  readable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T>;
  listAll(client: Client): Promise<Tool[]>;
  callOn(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<CallToolResult>;
  /** ends a task of the user's (`tasks/cancel`) */
  cancelOn(client: Client, taskId: string): Promise<void>;
  listTtlMs: number;
}

/**
 * Each signed-in user's Trellis of one MCP server: their own connection (opened with their token only, kept in the
 * pool under their hash), their own tool list. A 403 for want of scope turns into the person's consent to more.
 */
export function userTrellises(options: UserTrellisOptions): (req: IncomingMessage) => Trellis | undefined {
  const { signIn, pool, withClient, readable } = options;
  const views = new Map<string, Trellis>();
  const MAX_VIEWS = 1024;

  function viewOf(user: string): Trellis {
    const lease = () => pool.acquireKeyed(user, () => options.connect(signIn.authProvider(user)));
    let cache: { tools: Tool[]; expiresAt: number } | undefined;

    async function onConnection<T>(use: (client: Client) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
      const held = lease();
      try {
        return await readable(withClient(use, signal, held.connection), signal);
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause ?? error;
        if (cause instanceof mcpClient().InsufficientScopeError) throw await signIn.stepUp(user, cause);
        throw error;
      } finally {
        held.release();
      }
    }

    return {
      async listTools(signal) {
        if (cache && Date.now() < cache.expiresAt) return cache.tools;
        const tools = await onConnection(options.listAll, signal);
        cache = { tools, expiresAt: Date.now() + options.listTtlMs };
        return tools;
      },
      async callTool(name, args, callOptions) {
        const result = await onConnection(
          (client) => options.callOn(client, name, args, callOptions),
          callOptions.signal,
        );
        // only a call the server let through answers the step-ups asked so far (a listing may need no scope)
        signIn.served(user);
        return result;
      },
      async cancelTask(taskId) {
        await onConnection((client) => options.cancelOn(client, taskId), undefined);
      },
    };
  }

  return function forRequest(req) {
    const user = userOf(req, options.user);
    if (user === undefined) return undefined;
    signIn.remember(user, whoOf(req, options.user));
    let view = views.get(user);
    if (!view) {
      if (views.size >= MAX_VIEWS) views.delete(views.keys().next().value!);
      views.set(user, (view = viewOf(user)));
    }
    return view;
  };
}
