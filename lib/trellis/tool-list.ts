import type { Tool } from '../types';

/**
 * The server's tool list, kept `ttlMs`; concurrent listings share one `list()`, and a list that changed while it was
 * being listed is not kept.
 */
export function sharedToolList(ttlMs: number, list: () => Promise<Tool[]>) {
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
