import { asLoopTools, catalogTools, QUERIED_SERVERS, type CatalogQuery } from '../../fixtures/tool-catalog/catalog';
import heldOut from '../../fixtures/tool-catalog/held-out-queries.json';
import queries from '../../fixtures/tool-catalog/queries.json';
import { MAX_FOUND_DESCRIPTION, MAX_INDEXED_CHARS, ToolIndex } from '../../lib/tool-search/tool-index';
import { SLICE_MS } from '../../lib/tool-search/event-loop-slices';
import type { LoopTool } from '../../lib/loop/loop-tool';

const tool = (name: string, description: string, parameters: Record<string, unknown> = {}): LoopTool => ({
  name,
  description,
  parameters,
});

describe('ToolIndex', () => {
  const tools = [
    tool('slack_post_message', 'Post a new message to a Slack channel', {
      properties: { channel_id: { type: 'string', description: 'The ID of the channel' } },
    }),
    tool('create_pull_request', 'Create a new pull request in a GitHub repository'),
    tool('merge_pull_request', 'Merge a pull request'),
    tool('maps_geocode', 'Convert an address into geographic coordinates', {
      properties: { address: { type: 'string' } },
    }),
    tool('read_file', 'Read the complete contents of a file from the file system', {
      properties: { path: { type: 'string' } },
    }),
  ];

  it('ranks by the words of the name first, best first', async () => {
    expect((await ToolIndex.of(tools).search('merge pull request', 5)).map((found) => found.name)).toEqual([
      'merge_pull_request',
      'create_pull_request',
    ]);
  });

  it("finds a tool by its description's and its parameters' words", async () => {
    expect((await ToolIndex.of(tools).search('geographic coordinates', 5))[0].name).toBe('maps_geocode');
    expect((await ToolIndex.of(tools).search('channel id', 5))[0].name).toBe('slack_post_message');
  });

  it("counts a description's first sentence, which says what the tool does, above the rest", async () => {
    const listing = [
      tool('alpha', 'Lists the channels. It can also list archives: channel archives, the archives of a workspace.'),
      tool(
        'beta',
        'Archives a channel, so that no one can post in it any more; its messages and members are kept as they were.',
      ),
    ];
    expect((await ToolIndex.of(listing).search('archive a channel', 5)).map((found) => found.name)).toEqual([
      'beta',
      'alpha',
    ]);
  });

  it('answers { name, description } and at most max tools', async () => {
    expect(await ToolIndex.of(tools).search('new pull request', 1)).toEqual([
      { name: 'create_pull_request', description: 'Create a new pull request in a GitHub repository' },
    ]);
  });

  it('cuts long descriptions', async () => {
    const [found] = await ToolIndex.of([tool('long_tool', `long ${'x'.repeat(1000)}`)]).search('long', 5);
    expect(found.description).toHaveLength(MAX_FOUND_DESCRIPTION);
    expect(found.description.endsWith('…')).toBe(true);
  });

  it('answers nothing for a query without a known word', async () => {
    expect(await ToolIndex.of(tools).search('weather tomorrow', 5)).toEqual([]);
    expect(await ToolIndex.of(tools).search('', 5)).toEqual([]);
  });

  it('builds the index once per listing', () => {
    expect(ToolIndex.of(tools)).toBe(ToolIndex.of(tools));
    expect(ToolIndex.of([...tools])).not.toBe(ToolIndex.of(tools));
  });

  it('indexes each field up to MAX_INDEXED_CHARS characters, and weighs what it indexed', async () => {
    const far = (at: number) => [tool('far_tool', `${'filler '.repeat(at / 7)}needle`)];
    expect(await ToolIndex.of(far(MAX_INDEXED_CHARS - 7)).search('needle', 5)).toHaveLength(1);
    expect(await ToolIndex.of(far(MAX_INDEXED_CHARS)).search('needle', 5)).toEqual([]);
    const long = ToolIndex.of([tool('long_tool', 'x'.repeat(3 * MAX_INDEXED_CHARS), { properties: { p: {} } })]);
    // name, the first sentence and the description cut, the parameters' names
    expect(long.chars).toBe('long_tool'.length + 2 * MAX_INDEXED_CHARS + 'p'.length + ' '.length);
  });

  it('builds a large index a slice at a time, the event loop free between them', async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const many = Array.from({ length: 2_000 }, (_, i) =>
      tool(`tool_${i}`, `Tool number ${i} does ${'things '.repeat(40)}`),
    );
    try {
      expect((await ToolIndex.of(many).search('number 1999', 1))[0].name).toBe('tool_1999');
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('searches word by word, handing the event loop back between words once a slice has run', async () => {
    const index = ToolIndex.of(tools);
    await index.search('filled', 1);
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => (now += SLICE_MS + 1));
    let turns = 0;
    let spinning = true;
    const spin = () => {
      if (!spinning) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    try {
      expect((await index.search('merge pull request', 1)).map((found) => found.name)).toEqual(['merge_pull_request']);
    } finally {
      spinning = false;
      jest.restoreAllMocks();
    }
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('finds the tool users ask for in the top 5 at least 9 times in 10, over the real MCP servers the queries ask about', async () => {
    const catalog = asLoopTools(catalogTools(QUERIED_SERVERS));
    const index = ToolIndex.of(catalog);
    const answers = new Map<string, string[]>();
    for (const { query } of [...queries, ...heldOut] as CatalogQuery[])
      answers.set(
        query,
        (await index.search(query, 5)).map((found) => found.name),
      );
    const recall = (asked: CatalogQuery[]) => {
      const missed = asked.filter(
        ({ query, expect: wanted }) => !answers.get(query)!.some((name) => wanted.includes(name)),
      );
      const found = asked.length - missed.length;
      const rate = found / asked.length;
      return {
        rate,
        text: `${rate.toFixed(3)} (${found} of ${asked.length}; missed: ${missed.map((q) => JSON.stringify(q.query)).join(', ')})`,
      };
    };
    const [written, kept, all] = [queries, heldOut, [...queries, ...heldOut]].map((asked) =>
      recall(asked as CatalogQuery[]),
    );
    process.stdout.write(
      `tool search recall@5 over ${catalog.length} tools: ${all.rate.toFixed(3)} in all; the catalog's queries ${written.text}; held-out queries ${kept.text}\n`,
    );
    expect(catalog.length).toBeGreaterThanOrEqual(200);
    expect(new Set(catalog.map((t) => t.name)).size).toBe(catalog.length);
    expect(queries.length + heldOut.length).toBeGreaterThanOrEqual(50);
    expect(all.rate).toBeGreaterThanOrEqual(0.9);
  });
});
