import type { SdkHttpError } from '@modelcontextprotocol/client';
import { redacted } from '../shared/redact';
import { abortable } from '../shared/signals';
import { mcpClient } from './mcp-sdk';
import { ConsentRequired } from './oauth/consent';

const MAX_DETAIL = 160;

/** The server no longer knows our session (restarted, or it expired): a fresh `initialize` fixes it. */
export function isSessionLost(error: unknown): boolean {
  return error instanceof mcpClient().SdkHttpError && error.status === 404;
}

/**
 * The system error code (ECONNREFUSED, ECONNRESET, ENOENT, UND_ERR_SOCKET...) somewhere in the cause chain; the
 * SDK's own codes (ERA_NEGOTIATION_FAILED...) on the way are passed over.
 */
function systemCode(error: unknown): string | undefined {
  const { SdkError } = mcpClient();
  // not `instanceof Error`: errors from node's fetch and spawn may come from another realm (jest, vm)
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && !(current instanceof SdkError)) return code;
    current = cause;
  }
  return undefined;
}

function oneLine(text: string): string {
  const line = redacted(text.replace(/\s+/g, ' ').trim());
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 3)}...` : line;
}

/** The JSON-RPC error message in the body of a failed HTTP exchange, else the body (or status text) itself. */
function httpDetail(error: SdkHttpError): string {
  const { text } = error.data;
  const body = typeof text === 'string' ? text : (error.statusText ?? '');
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
  if (error instanceof ConsentRequired) return error;
  const { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } = mcpClient();
  const readable = (message: string) => new Error(message, { cause: error });
  if (error instanceof SdkHttpError) {
    const detail = httpDetail(error);
    return readable(`Trellis at ${target} answered HTTP ${error.status}${detail ? ` (${detail})` : ''}`);
  }
  const code = systemCode(error);
  if (code) return readable(`Trellis unreachable at ${target} (${code})`);
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return readable(`Trellis connection to ${target} was lost`);
  }
  if (error instanceof ProtocolError) return readable(`Trellis at ${target} failed: ${oneLine(error.message)}`);
  return readable(`Trellis at ${target} failed: ${oneLine(withRootCause(error))}`);
}

/** The message, and the innermost cause's where it says more (the SDK's "...: fetch failed" hides "bad port"). */
function withRootCause(error: unknown): string {
  const messageOf = (value: unknown) => (value as { message?: unknown } | undefined)?.message;
  const top = messageOf(error);
  let root: unknown = error;
  for (let depth = 0; depth < 6 && (root as { cause?: unknown })?.cause !== undefined; depth++)
    root = (root as { cause?: unknown }).cause;
  const rootMessage = messageOf(root);
  const text = typeof top === 'string' ? top : String(error);
  return typeof rootMessage === 'string' && rootMessage && !text.includes(rootMessage)
    ? `${text} (${rootMessage})`
    : text;
}

/** `work`'s failures as the trellis errors that name `target`, the caller's signal bounding the wait. */
export function readableAt(target: string) {
  return async function readable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await abortable(work, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw trellisError(error, target);
    }
  };
}
