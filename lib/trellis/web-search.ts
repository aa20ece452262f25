import axios from 'axios';
import Joi from 'joi';
import {
  option,
  required,
  schemaOf,
  validator,
  wholeNumber,
  type OptionsIn,
  type OptionsOut,
} from '../options/declaration';
import type { Tool, Trellis } from '../types';

const maxResults = wholeNumber(1, 20, 5, { does: 'how many results the `web_search` tool returns' });

const webSearchOptions = {
  searxngUrl: required<string>({
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    hint: "it must be the base URL of a SearXNG instance with the JSON format enabled, e.g. 'http://127.0.0.1:8888'",
  }),
  /** the loop runs for every request without a binding, not only those carrying `web_search_options` */
  always: option<boolean>({ schema: Joi.boolean() }),
  maxResults,
};

export type WebSearchOptions = OptionsIn<typeof webSearchOptions>;

const schema = schemaOf(webSearchOptions);

export const webSearchOption = option<WebSearchOptions, ValidWebSearchOptions>({
  schema,
  hint:
    `it must be { searxngUrl, always?: boolean, maxResults?: ${maxResults.doc!.range} }, ` +
    `e.g. webSearch: { searxngUrl: 'http://127.0.0.1:8888', always: false }`,
  doc: {
    range: '`{ searxngUrl, always?, maxResults? }`',
    fallback: 'none',
    does:
      'with no binding, a request carrying `web_search_options` (or any request, ' +
      'with `always`) runs the loop with one tool, `web_search`',
  },
  inner: webSearchOptions,
});

type ValidWebSearchOptions = OptionsOut<typeof webSearchOptions>;

const validOptions = validator<ValidWebSearchOptions>('webSearchTrellis', schema, webSearchOptions);

interface SearxResult {
  title?: string;
  url?: string;
  content?: string;
}

export const WEB_SEARCH_TOOL: Tool = {
  name: 'web_search',
  description: 'Search the web. Returns the top results, each with its title, URL and a snippet.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'what to search for' } },
    required: ['query'],
  },
};

function formatResults(query: string, results: SearxResult[]): string {
  if (results.length === 0) return `No web results for "${query}".`;
  return results
    .map((result, i) =>
      `${i + 1}. ${result.title ?? '(untitled)'}\n   ${result.url ?? ''}\n   ${result.content ?? ''}`.trimEnd(),
    )
    .join('\n');
}

/** The `web_search` tool as a Trellis: a SearXNG instance's JSON API, top results as text. */
export function webSearchTrellis(options: WebSearchOptions): Trellis {
  return openWebSearch(validOptions(options));
}

/** `webSearchTrellis` of options already validated (agentLoop's `webSearch`). */
export function openWebSearch({ searxngUrl, maxResults }: ValidWebSearchOptions): Trellis {
  const http = axios.create({ baseURL: searxngUrl.replace(/\/$/, ''), maxRedirects: 0, proxy: false });
  const tools = [WEB_SEARCH_TOOL];
  return {
    async listTools() {
      return tools;
    },
    async callTool(_name, args, { signal }) {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query)
        return { content: [{ type: 'text', text: "web_search needs a non-empty 'query' string" }], isError: true };
      const response = await http
        .get('/search', { params: { q: query, format: 'json' }, signal })
        .catch((error: Error) => {
          throw new Error(`web search failed: ${error.message}`);
        });
      const results = Array.isArray(response.data?.results) ? (response.data.results as SearxResult[]) : [];
      return { content: [{ type: 'text', text: formatResults(query, results.slice(0, maxResults)) }] };
    },
  };
}
