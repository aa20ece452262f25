import MiniSearch from 'minisearch';
import type { ChatTool } from '../types';
import { queryWords } from './query-words';
import { toolWords } from './tool-words';

/** One tool a search found, as the model reads it. */
export interface FoundTool {
  name: string;
  description: string;
}

/** A found tool's description is cut here: the model reads the whole definition once the tool is loaded. */
export const MAX_FOUND_DESCRIPTION = 300;

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
export const foundTool = ({ function: fn }: ChatTool): FoundTool => ({
  name: fn.name,
  description: shortened(fn.description ?? ''),
});

/** What a search reads of a tool besides its name: its description, its parameters' names and descriptions. */
export const searchedText = ({ function: fn }: ChatTool): string =>
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

/**
 * BM25 (MiniSearch's BM25+) over a tool listing: each tool's name split into words (weighted most), its description
 * (its first sentence counted twice), and its parameters' names and descriptions. Built once per listing:
 * `ToolIndex.of` hands back the same index for the same listing (the catalog keeps one array until Trellis lists anew).
 */
export class ToolIndex {
  private static readonly built = new WeakMap<readonly ChatTool[], ToolIndex>();
  private readonly search_: MiniSearch<Entry>;
  private readonly found: FoundTool[];

  static of(tools: readonly ChatTool[]): ToolIndex {
    let index = ToolIndex.built.get(tools);
    if (!index) ToolIndex.built.set(tools, (index = new ToolIndex(tools)));
    return index;
  }

  private constructor(readonly tools: readonly ChatTool[]) {
    this.search_ = new MiniSearch<Entry>({
      fields: ['name', 'summary', 'description', 'parameters'],
      tokenize: (text) => toolWords(text),
      processTerm: (term) => term,
      searchOptions: { boost: { name: 2, summary: 1, description: 1, parameters: 0.5 }, combineWith: 'OR' },
    });
    this.search_.addAll(
      tools.map(({ function: fn }, id) => ({
        id,
        name: fn.name,
        summary: firstSentence(fn.description ?? ''),
        description: fn.description ?? '',
        parameters: parameterText(fn.parameters).join(' '),
      })),
    );
    this.found = tools.map(foundTool);
  }

  /** At most `max` tools, best first; none for a query with no word the listing knows. */
  search(query: string, max: number): FoundTool[] {
    const { own, related } = queryWords(query);
    const words = new Set(own);
    return this.search_
      .search([...own, ...related].join(' '), {
        tokenize: (words) => words.split(' '),
        boostTerm: (term) => (words.has(term) ? 1 : RELATED_WEIGHT),
      })
      .slice(0, max)
      .map((hit) => this.found[hit.id as number]);
  }
}
