import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const MAX_DETAIL = 160;

/** The server no longer knows our session (restarted, or it expired): a fresh `initialize` fixes it. */
export function isSessionLost(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** The system error code (ECONNREFUSED, ECONNRESET, ENOENT, UND_ERR_SOCKET...) somewhere in the cause chain. */
function systemCode(error: unknown): string | undefined {
  // not `instanceof Error`: errors from node's fetch and spawn may come from another realm (jest, vm)
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    current = cause;
  }
  return undefined;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 3)}...` : line;
}

/** The JSON-RPC error message in the body of a failed HTTP exchange, else the body (or status text) itself. */
function httpDetail(error: StreamableHTTPError): string {
  const body = error.message.replace(/^Streamable HTTP error: [^:]*: ?/, '');
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return oneLine(message);
  } catch {
    // not JSON: the raw text below is the best detail there is
  }
  return oneLine(body);
}

/** A short, readable Error for anything the SDK or the network threw; the original stays as `cause`. */
export function trellisError(error: unknown, target: string): Error {
  const readable = (message: string) => new Error(message, { cause: error });
  if (error instanceof StreamableHTTPError) {
    const detail = httpDetail(error);
    if (error.code === undefined || error.code < 0) return readable(`Trellis at ${target} failed: ${detail}`);
    return readable(`Trellis at ${target} answered HTTP ${error.code}${detail ? ` (${detail})` : ''}`);
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return readable(`Trellis connection to ${target} was lost`);
  }
  if (error instanceof McpError) return readable(`Trellis at ${target} failed: ${oneLine(error.message)}`);
  const code = systemCode(error);
  if (code) return readable(`Trellis unreachable at ${target} (${code})`);
  const message = (error as { message?: unknown } | undefined)?.message;
  return readable(`Trellis at ${target} failed: ${oneLine(typeof message === 'string' ? message : String(error))}`);
}
