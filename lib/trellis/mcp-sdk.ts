import type * as Client from '@modelcontextprotocol/client';
import type * as Stdio from '@modelcontextprotocol/client/stdio';

let client: typeof Client | undefined;
let stdio: typeof Stdio | undefined;

/**
 * The MCP client SDK, loaded when a Trellis first connects: with zod it is about a tenth of a second of start-up,
 * which an app that never reaches an MCP server (or reaches it only later) does not pay when it loads the middleware.
 */
export function mcpClient(): typeof Client {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (client ??= require('@modelcontextprotocol/client') as typeof Client);
}

/** The SDK's stdio transport, loaded with the first stdio server (it pulls in cross-spawn). */
export function mcpStdio(): typeof Stdio {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (stdio ??= require('@modelcontextprotocol/client/stdio') as typeof Stdio);
}
