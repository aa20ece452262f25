import { DeferredTools, splitListing } from '../../lib/tool-search/deferred-tools';
import { toolSearchOf } from '../../lib/tool-search/options';
import { toolOutcomeText } from '../../lib/loop/tool-outcome';
import type { Conversation } from '../../lib/loop/wire';
import type { LoopTool } from '../../lib/loop/loop-tool';

const tool = (name: string, description: string): LoopTool => ({ name, description, parameters: { type: 'object' } });
const listing = [
  tool('repo_open', 'Open a repository'),
  tool('create_pull_request', 'Create a new pull request'),
  tool('merge_pull_request', 'Merge a pull request'),
  tool('slack_post_message', 'Post a message to Slack'),
];
const on = toolSearchOf({ above: 2, keep: ['repo_open'] }, undefined) as Exclude<
  ReturnType<typeof toolSearchOf>,
  false
>;

describe('splitListing', () => {
  it('offers only keep past `above` tools, and holds the rest back', () => {
    const split = splitListing(listing, on);
    expect(split.offered.map((t) => t.name)).toEqual(['repo_open']);
    expect(split.held.map((t) => t.name)).toEqual(['create_pull_request', 'merge_pull_request', 'slack_post_message']);
  });

  it('splits a listing once', () => {
    expect(splitListing(listing, on)).toBe(splitListing(listing, on));
  });

  it('offers every tool up to `above`, and when off', () => {
    expect(splitListing(listing, { ...on, above: 4 })).toEqual({ offered: listing, held: [] });
    expect(splitListing(listing, false)).toEqual({ offered: listing, held: [] });
  });
});

describe('DeferredTools', () => {
  const held = splitListing(listing, on).held;
  /** the tools the search offered since the last look, by name */
  const offered = (deferred: DeferredTools, clientTools = new Set<string>()) => {
    const names: string[] = [];
    deferred.offerFound(
      {
        offer: (tools: readonly LoopTool[]) => names.push(...tools.map((t) => t.name)),
      } as unknown as Conversation,
      clientTools,
    );
    return names;
  };

  it('answers a search with { name, description } as JSON and loads what it found, once', async () => {
    const loaded: string[] = [];
    const deferred = new DeferredTools(held, [], 'bm25', 5, loaded);
    expect(deferred.holds('merge_pull_request')).toBe(true);
    const outcome = await deferred.search({ query: 'merge a pull request' });
    expect(outcome).toEqual({
      kind: 'ok',
      text: JSON.stringify([
        { name: 'merge_pull_request', description: 'Merge a pull request' },
        { name: 'create_pull_request', description: 'Create a new pull request' },
      ]),
    });
    expect(offered(deferred)).toEqual(['merge_pull_request', 'create_pull_request']);
    expect(deferred.holds('merge_pull_request')).toBe(false);
    await deferred.search({ query: 'pull request' });
    expect(offered(deferred)).toEqual([]);
    expect(loaded).toEqual(['merge_pull_request', 'create_pull_request']);
  });

  it("searches the client's tools held back beside the binding's; the client's found are handed back", async () => {
    const deferred = new DeferredTools(held, [tool('get_weather', 'Weather forecast for a city')], 'bm25', 1, []);
    expect(JSON.parse(((await deferred.search({ query: 'weather in Berlin' })) as { text: string }).text)).toEqual([
      { name: 'get_weather', description: 'Weather forecast for a city' },
    ]);
    const clientTools = new Set<string>();
    expect(offered(deferred, clientTools)).toEqual(['get_weather']);
    expect([...clientTools]).toEqual(['get_weather']);
  });

  it('opens only when it holds tools back, offering tool_search and what a continuation loaded, which it carries on', async () => {
    const names: string[] = [];
    const conversation = {
      offer: (tools: readonly LoopTool[]) => names.push(...tools.map((t) => t.name)),
    } as unknown as Conversation;
    expect(
      DeferredTools.open({ held: [], config: on, earlier: [], loaded: [] }, conversation, new Set()),
    ).toBeUndefined();
    const loaded: string[] = [];
    const deferred = DeferredTools.open(
      {
        held,
        client: { held: [tool('get_weather', 'Weather')], kind: 'regex' },
        config: on,
        earlier: ['get_weather', 'gone_tool', 'slack_post_message'],
        loaded,
      },
      conversation,
      new Set(),
    );
    expect(names).toEqual(['tool_search', 'get_weather', 'slack_post_message']);
    await deferred!.search({ query: '^merge' });
    expect(loaded).toEqual(['get_weather', 'slack_post_message', 'merge_pull_request']);
    expect(deferred?.tool.parameters).toMatchObject({
      properties: { query: { description: expect.stringContaining('RE2') } },
    });
  });

  it('reads the query as an RE2 pattern in the regex variant', async () => {
    const deferred = new DeferredTools(held, [], 'regex', 5, []);
    expect(
      JSON.parse(((await deferred.search({ query: '^merge|slack' })) as { text: string }).text).map(
        (t: { name: string }) => t.name,
      ),
    ).toEqual(['merge_pull_request', 'slack_post_message']);
    expect(toolOutcomeText(await deferred.search({ query: '(' }))).toBe(
      "tool error: 'tool_search' cannot search: the pattern does not compile under RE2: missing closing ): `(`",
    );
  });

  it.each([[{}], [{ query: '' }], [{ query: 7 }]])('refuses %j', async (args) => {
    expect(toolOutcomeText(await new DeferredTools(held, [], 'bm25', 5, []).search(args))).toBe(
      `tool error: 'tool_search' cannot search: it needs a query, e.g. {"query":"create a pull request"}`,
    );
  });

  it("loads a continuation's tools in their order, passing over names it holds none of", () => {
    const deferred = new DeferredTools(held, [], 'bm25', 5, []);
    deferred.load(['slack_post_message', 'gone_tool', 'create_pull_request']);
    expect(offered(deferred)).toEqual(['slack_post_message', 'create_pull_request']);
    expect(deferred.holds('slack_post_message')).toBe(false);
    expect(deferred.holds('gone_tool')).toBe(false);
  });

  it("in code mode, declares the binding's tools found in its answer and offers only the client's", async () => {
    const declare = (t: LoopTool) => `tools.${t.name}(args): Promise<unknown>;`;
    const client = [tool('merge_queue', 'Merge queue of your own')];
    const deferred = new DeferredTools(held, client, 'regex', 5, [], declare);
    expect(deferred.tool.description).toContain('each declared as an async function of `tools`');
    expect(toolOutcomeText(await deferred.search({ query: '^merge' }))).toBe(
      'tools.merge_pull_request(args): Promise<unknown>;\n// merge_queue: Merge queue of your own (a tool of your own: call it directly, not from run_code)',
    );
    const clientTools = new Set<string>();
    expect(offered(deferred, clientTools)).toEqual(['merge_queue']);
    expect([...clientTools]).toEqual(['merge_queue']);
    expect(deferred.holds('merge_pull_request')).toBe(false);
    expect(toolOutcomeText(await deferred.search({ query: '^nothing' }))).toBe('No tool found: try other words.');
  });

  it('in code mode, loads what a continuation loaded without offering it', () => {
    const names: string[] = [];
    const conversation = {
      offer: (tools: readonly LoopTool[]) => names.push(...tools.map((t) => t.name)),
    } as unknown as Conversation;
    const setup = { held, config: on, earlier: ['slack_post_message'], loaded: [], declare: () => '' };
    const deferred = DeferredTools.open(setup, conversation, new Set());
    expect(names).toEqual(['tool_search']);
    expect(deferred!.holds('slack_post_message')).toBe(false);
  });

  it('says the tool_search definition in the kind and count it searches with', () => {
    expect(new DeferredTools(held, [], 'regex', 3, []).tool.description).toContain('up to 3 tools');
  });
});
