import type { Client } from '@modelcontextprotocol/client';
import { abortable } from '../shared/signals';
import type { Logger } from '../types';
import type { McpConnection } from './mcp-connection';
import { isSessionLost } from './mcp-errors';

export type WithClient = <T>(
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
export function retryingOnLostSession(shared: McpConnection, logger: Logger, trellis: string): WithClient {
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
