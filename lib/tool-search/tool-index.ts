import MiniSearch from 'minisearch';
import type { LoopTool } from '../loop/loop-tool';
import { EventLoopSlices } from './event-loop-slices';
import { queryWords } from './query-words';
import { toolWords } from './tool-words';

/** One tool a search found, as the model reads it. */
export interface FoundTool {
  name: string;
  description: string;
}

/** A found tool's description is cut here: the model reads the whole definition once the tool is loaded. */
export const MAX_FOUND_DESCRIPTION = 300;

/**
 * Each field of a tool is indexed up to this many characters: a long text costs time and memory, and says little more.
 */
export const MAX_INDEXED_CHARS = 4_096;
const MAX_SCHEMA_DEPTH = 4;
/** a word the query stands for counts less than one it says */
const RELATED_WEIGHT = 0.6;

/** The names and descriptions of a schema's parameters, nested ones too (a few levels deep). */
function parameterText(schema: unknown, depth = 0): string[] {
  if (typeof schema !== 'object' || schema === null || depth > MAX_SCHEMA_DEPTH) return [];
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  const texts: string[] = parameterText(items, depth + 1);
  if (typeof properties !== 'object' || properties === null) return texts;
  for (const [name, property] of Object.entries(properties)) {
    const { description } = (property ?? {}) as { description?: unknown };
    texts.push(name, typeof description === 'string' ? description : '', ...parameterText(property, depth + 1));
  }
  return texts;
}

const shortened = (text: string) =>
  text.length <= MAX_FOUND_DESCRIPTION ? text : `${text.slice(0, MAX_FOUND_DESCRIPTION - 1)}…`;

/** A tool as a search answers it: its name, and its description cut to MAX_FOUND_DESCRIPTION. */
export const foundTool = (fn: LoopTool): FoundTool => ({
  name: fn.name,
  description: shortened(fn.description ?? ''),
});

/** What a search reads of a tool besides its name: its description, its parameters' names and descriptions. */
export const searchedText = (fn: LoopTool): string =>
  [fn.description ?? '', ...parameterText(fn.parameters)].join('\n');

interface Entry {
  id: number;
  name: string;
  /** the description's first sentence: what the tool does, where the rest is mostly how to call it */
  summary: string;
  description: string;
  parameters: string;
}

const firstSentence = (text: string): string => text.split(/(?<=[.!?])\s|\n/, 1)[0];
const cut = (text: string): string => (text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text);

function entryOf(fn: LoopTool, id: number): Entry {
  const description = cut(fn.description ?? '');
  return {
    id,
    name: cut(fn.name),
    summary: firstSentence(description),
    description,
    parameters: cut(parameterText(fn.parameters).join(' ')),
  };
}

/**
 * BM25 (MiniSearch's BM25+) over a tool listing: each tool's name split into words (weighted most), its description
 * (its first sentence counted twice), and its parameters' names and descriptions, each cut to MAX_INDEXED_CHARS.
 * Built once per listing: `ToolIndex.of` hands back the same index for the same listing (the catalog keeps one array
 * until Trellis lists anew). It is built a slice at a time, the event loop free between them; a search waits for it.
 */
export class ToolIndex {
  private static readonly built = new WeakMap<readonly LoopTool[], ToolIndex>();
  private readonly search_: MiniSearch<Entry>;
  private readonly found: FoundTool[];
  private readonly filled: Promise<void>;
  /** the characters indexed: what the index weighs, 10 to 20 bytes of heap each */
  readonly chars: number;

  static of(tools: readonly LoopTool[]): ToolIndex {
    let index = ToolIndex.built.get(tools);
    if (!index) ToolIndex.built.set(tools, (index = new ToolIndex(tools)));
    return index;
  }

  private constructor(readonly tools: readonly LoopTool[]) {
    this.search_ = new MiniSearch<Entry>({
      fields: ['name', 'summary', 'description', 'parameters'],
      tokenize: (text) => toolWords(text),
      processTerm: (term) => term,
      searchOptions: { boost: { name: 2, summary: 1, description: 1, parameters: 0.5 }, combineWith: 'OR' },
    });
    const entries = tools.map(entryOf);
    this.chars = entries.reduce(
      (sum, entry) =>
        sum + entry.name.length + entry.summary.length + entry.description.length + entry.parameters.length,
      0,
    );
    this.found = tools.map(foundTool);
    this.filled = this.fill(entries);
  }

  private async fill(entries: Entry[]): Promise<void> {
    const slices = new EventLoopSlices();
    for (const entry of entries) {
      await slices.between();
      this.search_.add(entry);
    }
  }

  /**
   * At most `max` tools, best first; none for a query with no word the listing knows. Word by word, the event loop
   * free between them, scored as MiniSearch's OR query scores them: the sum of the words' scores, times how many
   * words the tool has.
   */
  async search(query: string, max: number): Promise<FoundTool[]> {
    await this.filled;
    const { own, related } = queryWords(query);
    const said = new Set(own);
    const hits = new Map<number, { score: number; words: Set<string> }>();
    const slices = new EventLoopSlices();
    for (const word of [...own, ...related]) {
      await slices.between();
      const boost = said.has(word) ? 1 : RELATED_WEIGHT;
      for (const { id, score } of this.search_.search(word, { tokenize: () => [word], boostTerm: () => boost })) {
        const hit = hits.get(id as number) ?? { score: 0, words: new Set<string>() };
        hit.score += score;
        hit.words.add(word);
        hits.set(id as number, hit);
      }
    }
    return [...hits]
      .map(([id, hit]) => ({ id, score: hit.score * hit.words.size }))
      .sort((a, b) => b.score - a.score)
      .slice(0, max)
      .map((hit) => this.found[hit.id]);
  }
}
