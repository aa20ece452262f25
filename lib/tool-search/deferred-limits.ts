import { isObject } from '../shared/fields';
import type { ToolSearchConfig } from './options';

/** Deferred tools one request may bring to the loop's tool search. */
export const MAX_DEFERRED_TOOLS = 10_000;
/**
 * Their JSON, in bytes, in one request: the index over them is built for the request (and may be kept for the next).
 */
export const MAX_DEFERRED_BYTES = 1024 * 1024;

/** A client's own tool search, either wire's: Responses' `tool_search`, Messages' `tool_search_tool_*`. */
const searchesItself = (tool: unknown): boolean =>
  isObject(tool) &&
  (tool.type === 'tool_search' || (typeof tool.type === 'string' && tool.type.startsWith('tool_search_tool_')));

/**
 * Why the loop will not serve this request's own tool search (more deferred tools, or more of their JSON, than it
 * indexes for one request), or undefined: when the loop serves it (`toolSearch` on, not `native`) and the request
 * brings its search tool.
 */
export function deferredToolsRefusal(tools: unknown, config: ToolSearchConfig | false): string | undefined {
  if (!config || config.native || !Array.isArray(tools) || !tools.some(searchesItself)) return undefined;
  let count = 0;
  let bytes = 0;
  for (const tool of tools)
    if (isObject(tool) && tool.defer_loading === true) {
      count++;
      bytes += Buffer.byteLength(JSON.stringify(tool));
    }
  if (count <= MAX_DEFERRED_TOOLS && bytes <= MAX_DEFERRED_BYTES) return undefined;
  return (
    `agent-loop: too many deferred tools (defer_loading: true) for the loop's tool search: this request has ` +
    `${count} in ${bytes} bytes of JSON, at most ${MAX_DEFERRED_TOOLS} tools and ${MAX_DEFERRED_BYTES} bytes ` +
    `per request; defer fewer tools, or shorten their descriptions.`
  );
}
