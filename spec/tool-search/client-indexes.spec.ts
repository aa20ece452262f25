import { ClientIndexes, MAX_CLIENT_INDEX_CHARS, MAX_CLIENT_INDEXES } from '../../lib/tool-search/client-indexes';
import { ToolIndex } from '../../lib/tool-search/tool-index';
import type { LoopTool } from '../../lib/loop/loop-tool';

const tool = (name: string, description = ''): LoopTool => ({ name, description, parameters: { type: 'object' } });
const held = [tool('repo_open', 'Open a repository')];
/** a client's listing of one tool, weighing name + description characters */
const listing = (name: string, description = 'x'.repeat(90)) => [tool(name, description)];

describe('ClientIndexes', () => {
  it("keeps the index over the binding's and the client's tools for the same listing, sent again", async () => {
    const indexes = new ClientIndexes();
    const index = indexes.over(held, listing('get_weather', 'Weather forecast for a city'));
    expect(indexes.over(held, listing('get_weather', 'Weather forecast for a city'))).toBe(index);
    expect((await index.search('open a repository', 5)).map((found) => found.name)).toEqual(['repo_open']);
    expect(indexes.over([...held], listing('get_weather', 'Weather forecast for a city'))).not.toBe(index);
    expect(indexes.size.entries).toBe(1);
  });

  it("uses the binding's own index when the client holds nothing back", () => {
    expect(new ClientIndexes().over(held, [])).toBe(ToolIndex.of(held));
  });

  it('keeps at most maxChars characters indexed, dropping the least recently used first', () => {
    const weight = ToolIndex.of([...held, ...listing('a')]).chars;
    const indexes = new ClientIndexes(32, 3 * weight);
    const a = indexes.over(held, listing('a'));
    indexes.over(held, listing('b'));
    indexes.over(held, listing('c'));
    expect(indexes.over(held, listing('a'))).toBe(a);
    indexes.over(held, listing('d'));
    expect(indexes.size).toEqual({ entries: 3, chars: 3 * weight });
    expect(indexes.over(held, listing('a'))).toBe(a);
    const b = indexes.over(held, listing('b'));
    expect(indexes.over(held, listing('b'))).toBe(b);
    expect(indexes.size).toEqual({ entries: 3, chars: 3 * weight });
  });

  it('keeps at most maxEntries listings', () => {
    const indexes = new ClientIndexes(2);
    for (const name of ['a', 'b', 'c']) indexes.over(held, listing(name));
    expect(indexes.size.entries).toBe(2);
  });

  it('uses an index heavier than maxChars once, and keeps the others', () => {
    const indexes = new ClientIndexes(32, 500);
    const small = indexes.over(held, listing('small'));
    const heavy = indexes.over(held, listing('heavy', 'y'.repeat(600)));
    expect(indexes.over(held, listing('heavy', 'y'.repeat(600)))).not.toBe(heavy);
    expect(indexes.over(held, listing('small'))).toBe(small);
    expect(indexes.size.entries).toBe(1);
  });

  it('is bounded by default: 32 listings, 4 MiB of text indexed', () => {
    expect([MAX_CLIENT_INDEXES, MAX_CLIENT_INDEX_CHARS]).toEqual([32, 4 * 1024 * 1024]);
  });
});
