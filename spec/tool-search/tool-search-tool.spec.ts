import { toolSearchTool } from '../../lib/tool-search/tool-search-tool';

describe('toolSearchTool', () => {
  it('is a function tool taking one query string', () => {
    const tool = toolSearchTool('bm25', 5);
    expect(tool.name).toBe('tool_search');
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: expect.stringContaining('in a few words') } },
      required: ['query'],
      additionalProperties: false,
    });
    expect(tool.description).toContain('up to 5 tools');
  });

  it("says, in code mode, that it answers with declarations for run_code's programs", () => {
    expect(toolSearchTool('bm25', 5).description).toContain('as a JSON list of { name, description }');
    expect(toolSearchTool('bm25', 5, 'declarations').description).toBe(
      'Finds tools that are available but not loaded yet. Returns up to 5 tools, best first, each declared as an async function of `tools`; your run_code programs can call the tools found from your next turn on. Call it when no tool you know of fits the task.',
    );
  });

  it('asks for a regular expression in the regex variant', () => {
    expect(JSON.stringify(toolSearchTool('regex', 3).parameters)).toContain('RE2 syntax');
  });
});
