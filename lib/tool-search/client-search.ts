import type { LoopTool } from '../loop/loop-tool';
import type { SearchKind } from './tool-search-tool';

/** A client's tool held back by `defer_loading`: as the index reads it, and as the upstream gets it once found. */
export interface HeldClientTool<T> {
  tool: LoopTool;
  loaded: T;
}

/** A client's tools with its own tool search taken out: what goes upstream from turn 1, and what it held back. */
export interface ClientToolSearch<T> {
  passed: T[];
  kind: SearchKind;
  held: Map<string, HeldClientTool<T>>;
}

/**
 * The client's own tool search, wire by wire the same: its search tool (`kindOf` says which) and every tool marked
 * `defer_loading: true` (`asTool` reads it as the loop's tool) leave the list; the rest passes as sent. Undefined when
 * the client sends no search tool: its tools pass untouched, `defer_loading` and all.
 */
export function clientToolSearch<T extends Record<string, unknown>>(
  tools: T[],
  kindOf: (tool: T) => SearchKind | undefined,
  asTool: (tool: T) => LoopTool | undefined,
): ClientToolSearch<T> | undefined {
  const kind = tools.map(kindOf).find((found) => found !== undefined);
  if (kind === undefined) return undefined;
  const passed: T[] = [];
  const held = new Map<string, HeldClientTool<T>>();
  for (const tool of tools) {
    if (kindOf(tool) !== undefined) continue;
    const asLoop = tool.defer_loading === true ? asTool(tool) : undefined;
    if (asLoop === undefined) {
      passed.push(tool);
      continue;
    }
    const { defer_loading: _held, ...loaded } = tool;
    held.set(asLoop.name, { tool: asLoop, loaded: loaded as T });
  }
  return { passed, kind, held };
}
