import axios from 'axios';
import type { Tool, Trellis } from '../types';

export interface WebSearchOptions {
  searxngUrl: string;
  always?: boolean;
  maxResults?: number;
}

interface SearxResult {
  title?: string;
  url?: string;
  content?: string;
}

export const WEB_SEARCH_TOOL: Tool = {
  name: 'web_search',
  description: 'Search the web. Returns the top results, each with its title, URL and a snippet.',
  inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'what to search for' } }, required: ['query'] },
};

function formatResults(query: string, results: SearxResult[]): string {
  if (results.length === 0) return `No web results for "${query}".`;
  return results.map((result, i) => `${i + 1}. ${result.title ?? '(untitled)'}\n   ${result.url ?? ''}\n   ${result.content ?? ''}`.trimEnd()).join('\n');
}

/** The `web_search` tool as a Trellis: a SearXNG instance's JSON API, top results as text. */
export function webSearchTrellis({ searxngUrl, maxResults = 5 }: WebSearchOptions): Trellis {
  const http = axios.create({ baseURL: searxngUrl.replace(/\/$/, ''), maxRedirects: 0, proxy: false });
  const tools = [WEB_SEARCH_TOOL];
  return {
    async listTools() {
      return tools;
    },
    async callTool(_name, args, { signal }) {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query) return { content: [{ type: 'text', text: "web_search needs a non-empty 'query' string" }], isError: true };
      const response = await http.get('/search', { params: { q: query, format: 'json' }, signal }).catch((error: Error) => {
        throw new Error(`web search failed: ${error.message}`);
      });
      const results = Array.isArray(response.data?.results) ? (response.data.results as SearxResult[]) : [];
      return { content: [{ type: 'text', text: formatResults(query, results.slice(0, maxResults)) }] };
    },
  };
}
