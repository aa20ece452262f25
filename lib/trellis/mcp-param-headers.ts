import type { Tool } from '@modelcontextprotocol/client';

/**
 * An SDK tool definition reduced to what `Mcp-Param-*` headers are built from: no `outputSchema`, so none is checked.
 */
export type HeaderDefinition = Pick<Tool, 'name' | 'inputSchema'>;

const DECLARES_HEADERS = '"x-mcp-header"';

/**
 * SEP-2243: a `tools/call` over Streamable HTTP mirrors each argument whose property the tool's definition marks
 * `x-mcp-header` into an `Mcp-Param-<name>` header. The SDK builds the headers (names, Base64 of unsafe values) from
 * the definition it is given with the call; the loop lists tools past the SDK's cache (its own cache is the one that
 * counts), so this keeps, per server, the last listed definition of each tool that declares headers, to be given
 * with the call on whichever connection it runs (a user's own, a pooled one). A tool that declares none is called
 * without one, as before, so the SDK's own recovery (re-list and retry on a header mismatch) still holds.
 */
export function paramHeaderDefinitions(): {
  remember(tools: readonly HeaderDefinition[]): void;
  of(name: string): { toolDefinition: HeaderDefinition } | undefined;
} {
  const byName = new Map<string, HeaderDefinition>();
  return {
    remember(tools) {
      for (const { name, inputSchema } of tools) {
        if (JSON.stringify(inputSchema).includes(DECLARES_HEADERS)) byName.set(name, { name, inputSchema });
        else byName.delete(name);
      }
    },
    of(name) {
      const toolDefinition = byName.get(name);
      return toolDefinition && { toolDefinition };
    },
  };
}
