import { placeOf, toTool, withForwarded } from '../../lib/trellis/mcp-calls';
import type { Tool } from '../../lib/types';

describe('an MCP server as the loop names it and reads its tools', () => {
  it('names a URL server by its origin and path, and a stdio server by its command and redacted arguments', () => {
    expect(placeOf({ url: 'https://mcp.example/tools/mcp?token=abc#x' })).toBe('https://mcp.example/tools/mcp');
    expect(placeOf({ command: 'node', args: ['server.js', '--api-key=sk-secret-value'] })).not.toContain(
      'sk-secret-value',
    );
    expect(placeOf({ command: 'node', args: ['server.js'] })).toBe("'node server.js'");
  });

  it("keeps a listed tool's name, description, schema, annotations and _meta, and nothing else", () => {
    const listed = {
      name: 'notes_read',
      description: 'Reads a note.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      _meta: { parent: 'notes_open' },
      title: 'dropped',
      outputSchema: { type: 'object' },
    } as Tool;
    expect(toTool(listed)).toEqual({
      name: 'notes_read',
      description: 'Reads a note.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      _meta: { parent: 'notes_open' },
    });
    expect(Object.keys(toTool({ name: 'bare', inputSchema: { type: 'object' } }))).toEqual(['name', 'inputSchema']);
  });

  it("puts the user's forwarded headers in place of configured ones of the same name, whatever its case", () => {
    expect(
      withForwarded({ Authorization: 'Bearer configured', 'X-Team': 'a' }, { authorization: 'Bearer user' }),
    ).toEqual({ 'X-Team': 'a', authorization: 'Bearer user' });
    expect(withForwarded(undefined, { 'x-user': 'u' })).toEqual({ 'x-user': 'u' });
  });
});
