import { deferredToolsRefusal, MAX_DEFERRED_BYTES, MAX_DEFERRED_TOOLS } from '../../lib/tool-search/deferred-limits';
import { toolSearchOf } from '../../lib/tool-search/options';

const on = toolSearchOf(undefined, undefined);
const deferred = (count: number, description = '') =>
  Array.from({ length: count }, (_, i) => ({ type: 'function', name: `t${i}`, description, defer_loading: true }));
const search = { type: 'tool_search' };

describe('deferredToolsRefusal', () => {
  it('serves up to MAX_DEFERRED_TOOLS deferred tools and MAX_DEFERRED_BYTES of their JSON', () => {
    expect(deferredToolsRefusal([search, ...deferred(MAX_DEFERRED_TOOLS)], on)).toBeUndefined();
    const big = [{ type: 'tool_search_tool_regex_20251119' }, ...deferred(1, 'x'.repeat(MAX_DEFERRED_BYTES - 100))];
    expect(deferredToolsRefusal(big, on)).toBeUndefined();
  });

  it('refuses more deferred tools, or more bytes of them, saying what it serves', () => {
    const bytesOf = (tools: unknown[]) =>
      tools.reduce((sum: number, tool) => sum + Buffer.byteLength(JSON.stringify(tool)), 0);
    const refusal = (count: number, bytes: number) =>
      `agent-loop: too many deferred tools (defer_loading: true) for the loop's tool search: this request has ${count} in ${bytes} bytes of JSON, at most 10000 tools and 1048576 bytes per request; defer fewer tools, or shorten their descriptions.`;
    const many = deferred(MAX_DEFERRED_TOOLS + 1);
    expect(deferredToolsRefusal([search, ...many, { type: 'function', name: 'kept' }], on)).toBe(
      refusal(10001, bytesOf(many)),
    );
    const large = deferred(1, 'x'.repeat(MAX_DEFERRED_BYTES));
    expect(deferredToolsRefusal([{ type: 'tool_search_tool_bm25_20251119' }, ...large], on)).toBe(
      refusal(1, bytesOf(large)),
    );
  });

  it('leaves alone a request the loop does not serve the tool search of', () => {
    const many = deferred(MAX_DEFERRED_TOOLS + 1);
    expect(deferredToolsRefusal(many, on)).toBeUndefined();
    expect(deferredToolsRefusal([search, ...many], false)).toBeUndefined();
    expect(
      deferredToolsRefusal([search, ...many], { ...(on as Exclude<typeof on, false>), native: true }),
    ).toBeUndefined();
    expect(deferredToolsRefusal('tools', on)).toBeUndefined();
  });
});
