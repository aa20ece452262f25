import { clientToolSearch } from '../../lib/tool-search/client-search';
import type { LoopTool } from '../../lib/loop/loop-tool';

type Tool = Record<string, unknown>;
const kindOf = (tool: Tool) => (tool.type === 'tool_search' ? ('bm25' as const) : undefined);
const asTool = (tool: Tool): LoopTool | undefined =>
  tool.type === 'function' ? { name: tool.name as string, parameters: {} } : undefined;

describe('clientToolSearch', () => {
  it('takes out the search tool and the defer_loading tools, and keeps each held tool as sent, without defer_loading', () => {
    const shell = { type: 'function', name: 'shell', strict: false };
    const search = clientToolSearch(
      [
        { type: 'tool_search' },
        { type: 'function', name: 'plan' },
        { ...shell, defer_loading: true },
        { type: 'web_search' },
      ],
      kindOf,
      asTool,
    );
    expect(search?.kind).toBe('bm25');
    expect(search?.passed).toEqual([{ type: 'function', name: 'plan' }, { type: 'web_search' }]);
    expect([...search!.held.entries()]).toEqual([
      ['shell', { tool: { name: 'shell', parameters: {} }, loaded: shell }],
    ]);
  });

  it('passes a defer_loading tool it cannot read as a function as sent', () => {
    const odd = { type: 'computer', defer_loading: true };
    expect(clientToolSearch([{ type: 'tool_search' }, odd], kindOf, asTool)?.passed).toEqual([odd]);
  });

  it('is undefined without a search tool: the tools pass untouched, defer_loading and all', () => {
    expect(
      clientToolSearch([{ type: 'function', name: 'shell', defer_loading: true }], kindOf, asTool),
    ).toBeUndefined();
  });
});
