import type { LoopTool } from '../loop/loop-tool';

/** The function tool the loop offers in place of the tools it holds back, and answers itself. */
export const TOOL_SEARCH = 'tool_search';

/** How a search reads its query: words ranked by BM25, or (Anthropic's regex variant) a regular expression. */
export type SearchKind = 'bm25' | 'regex';

const QUERY: Record<SearchKind, string> = {
  bm25: 'What the tool should do, in a few words (e.g. "create a pull request", "post to a slack channel")',
  regex:
    'A regular expression (RE2 syntax, case-insensitive) matched against tool names, ' +
    'descriptions and parameters, e.g. "pull_request|merge"',
};

/** What a search returns: a JSON list of the tools found, or (in code mode) their declarations. */
const RETURNS = {
  list: (maxResults: number) =>
    `Returns up to ${maxResults} tools as a JSON list of { name, description }, best first; ` +
    'the tools found can be called from your next turn on. Call it when none of your tools fits the task.',
  declarations: (maxResults: number) =>
    `Returns up to ${maxResults} tools, best first, each declared as an async function of \`tools\`; ` +
    'your run_code programs can call the tools found from your next turn on. ' +
    'Call it when no tool you know of fits the task.',
};

/**
 * `tool_search` as the loop offers it; each wire offers it in its own tool shape. One definition per kind, result
 * count and answer, the same object every turn: the request's tool list stays byte for byte what it was.
 */
export function toolSearchTool(kind: SearchKind, maxResults: number, answer: keyof typeof RETURNS = 'list'): LoopTool {
  return {
    name: TOOL_SEARCH,
    description: `Finds tools that are available but not loaded yet. ${RETURNS[answer](maxResults)}`,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: QUERY[kind] } },
      required: ['query'],
      additionalProperties: false,
    },
  };
}
