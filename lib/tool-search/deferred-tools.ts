import type { ToolOutcome } from '../loop/tool-outcome';
import type { LoopTool } from '../loop/loop-tool';
import { MAX_RESULTS, type ToolSearchConfig } from './options';
import { BadPattern, regexSearch } from './regex-search';
import { ClientIndexes } from './client-indexes';
import type { FoundTool } from './tool-index';
import { toolSearchTool, TOOL_SEARCH, type SearchKind } from './tool-search-tool';

/**
 * A client's own tool search, taken out of its request: the upstream sees neither the search tool nor `defer_loading`.
 */
export interface ClientSearch {
  held: LoopTool[];
  kind: SearchKind;
}

/** Where the tools found are offered: the loop's conversation, which offers them in its wire's shape. */
export interface OfferedTo {
  offer(tools: readonly LoopTool[]): void;
}

/** What a loop's tool search starts from. */
export interface SearchSetup {
  /** the binding's tools held back */
  held: readonly LoopTool[];
  /** the client's own tool search, when the loop serves it */
  client?: ClientSearch;
  config: ToolSearchConfig | false;
  /** what the follow-up's continuations say the loops before loaded, in order */
  earlier: readonly string[];
  /** the live list the names of the tools loaded go to, in order: what a hand-back carries */
  loaded: string[];
  /**
   * code mode: a tool as an async function of `tools`. The binding's tools found are then declared in the search's
   * answer, for programs to call, and never offered: the tool list stays what turn 1 sent
   */
  declare?: (tool: LoopTool) => string;
}

/** A binding's listing split: the tools turn 1 offers, and those held back for `tool_search` to find. */
export interface Split {
  offered: readonly LoopTool[];
  held: readonly LoopTool[];
}

const splits = new WeakMap<readonly LoopTool[], WeakMap<ToolSearchConfig, Split>>();

/**
 * Past `above` tools, only `keep` is offered and the rest held back; once per listing (the catalog keeps its array).
 */
export function splitListing(tools: readonly LoopTool[], config: ToolSearchConfig | false): Split {
  if (!config || tools.length <= config.above) return { offered: tools, held: [] };
  let byConfig = splits.get(tools);
  if (!byConfig) splits.set(tools, (byConfig = new WeakMap()));
  let split = byConfig.get(config);
  if (!split) {
    const keep = new Set(config.keep);
    byConfig.set(
      config,
      (split = {
        offered: tools.filter((tool) => keep.has(tool.name)),
        held: tools.filter((tool) => !keep.has(tool.name)),
      }),
    );
  }
  return split;
}

/** the index over the client's deferred tools, kept across requests (the process's one) */
const clientIndexes = new ClientIndexes();

/**
 * One loop's tools held back, the binding's and the client's own: `tool_search` finds them, and each one found is
 * loaded, offered from the next turn on (after the tools offered already) to the loop's end and across a hand-back.
 */
export class DeferredTools {
  readonly tool: LoopTool;
  private readonly byName: Map<string, LoopTool>;
  private readonly fromClient: Set<string>;
  private readonly loaded = new Set<string>();
  private fresh: LoopTool[] = [];

  constructor(
    private readonly held: readonly LoopTool[],
    private readonly client: readonly LoopTool[],
    private readonly kind: SearchKind,
    private readonly maxResults: number,
    private readonly loadedNames: string[],
    private readonly declare?: (tool: LoopTool) => string,
  ) {
    this.tool = toolSearchTool(kind, maxResults, declare ? 'declarations' : 'list');
    this.byName = new Map([...held, ...client].map((tool) => [tool.name, tool]));
    this.fromClient = new Set(client.map((tool) => tool.name));
  }

  /**
   * A loop's tool search, when it holds tools back (the binding's past `above`, or a client's own search):
   * `tool_search`
   * and what a continuation loaded join the conversation before turn 1; a client's tools among those are handed back.
   */
  static open(
    { held, client, config, earlier, loaded, declare }: SearchSetup,
    conversation: OfferedTo,
    clientTools: Set<string>,
  ): DeferredTools | undefined {
    if (held.length === 0 && client === undefined) return undefined;
    const deferred = new DeferredTools(
      held,
      client?.held ?? [],
      client?.kind ?? 'bm25',
      config ? config.maxResults : MAX_RESULTS,
      loaded,
      declare,
    );
    deferred.load(earlier);
    deferred.offerFound(conversation, clientTools, [deferred.tool]);
    return deferred;
  }

  /**
   * The tools loaded since the last offer join the conversation (after `first`); the client's are handed back when
   * called.
   */
  offerFound(conversation: OfferedTo, clientTools: Set<string>, first: LoopTool[] = []): void {
    // in code mode, programs call the binding's tools found: only the client's own are offered
    const found = this.declare ? this.fresh.filter((tool) => this.fromClient.has(tool.name)) : this.fresh;
    this.fresh = [];
    if (first.length + found.length === 0) return;
    for (const tool of found) if (this.fromClient.has(tool.name)) clientTools.add(tool.name);
    conversation.offer([...first, ...found]);
  }

  /** a tool held back and not loaded yet: a call to it runs nothing */
  holds(name: string): boolean {
    return this.byName.has(name) && !this.loaded.has(name);
  }

  /** Loads these (a continuation's), as a search would have; a name this loop holds no tool of is passed over. */
  load(names: readonly string[]): void {
    for (const name of names) this.add(name);
  }

  /** The loop's answer to a `tool_search` call: the tools found as JSON, each of them loaded. */
  async search(args: Record<string, unknown>): Promise<ToolOutcome> {
    const { query } = args;
    if (typeof query !== 'string' || query.trim() === '')
      return {
        kind: 'invalid',
        tool: TOOL_SEARCH,
        why: 'bad_query',
        problem:
          'it needs a query, e.g. ' +
          `{"query":"${this.kind === 'regex' ? 'pull_request|merge' : 'create a pull request'}"}`,
      };
    let found: FoundTool[];
    try {
      found =
        this.kind === 'regex'
          ? await regexSearch([...this.held, ...this.client], query, this.maxResults)
          : await clientIndexes.over(this.held, this.client).search(query, this.maxResults);
    } catch (error) {
      if (!(error instanceof BadPattern)) throw error;
      return { kind: 'invalid', tool: TOOL_SEARCH, why: 'bad_query', problem: error.message };
    }
    for (const { name } of found) this.add(name);
    return { kind: 'ok', text: this.declare ? this.declared(found, this.declare) : JSON.stringify(found) };
  }

  /** The tools found as code mode reads them: the binding's declared, the client's (called directly) listed. */
  private declared(found: FoundTool[], declare: (tool: LoopTool) => string): string {
    if (found.length === 0) return 'No tool found: try other words.';
    return found
      .map(({ name, description }) =>
        this.fromClient.has(name)
          ? `// ${name}: ${description} (a tool of your own: call it directly, not from run_code)`
          : declare(this.byName.get(name)!),
      )
      .join('\n');
  }

  private add(name: string): void {
    const tool = this.byName.get(name);
    if (!tool || this.loaded.has(name)) return;
    this.loaded.add(name);
    this.loadedNames.push(name);
    this.fresh.push(tool);
  }
}
