import { toolSearchTool } from '../../lib/tool-search/tool-search-tool';

describe('toolSearchTool', () => {
  it('is a function tool taking one query string', () => {
    const tool = toolSearchTool('bm25', 5);
    expect(tool.function.name).toBe('tool_search');
    expect(tool.function.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: expect.stringContaining('in a few words') } },
      required: ['query'],
      additionalProperties: false,
    });
    expect(tool.function.description).toContain('up to 5 tools');
  });

  it('asks for a regular expression in the regex variant', () => {
    expect(JSON.stringify(toolSearchTool('regex', 3).function.parameters)).toContain('RE2 syntax');
  });
});
