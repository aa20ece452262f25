import { declaration, firstSentence, runCodeTool, typeOf } from '../../lib/code-mode/declarations';
import type { LoopTool } from '../../lib/loop/loop-tool';

describe('the declarations run_code gives the model', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'integer' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'null' }, 'null'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ enum: ['a', 1] }, '"a" | 1'],
    [{ const: 'x' }, '"x"'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { enum: ['a', 'b'] } }, 'Array<"a" | "b">'],
    [{ type: 'object' }, 'Record<string, unknown>'],
    [
      { type: 'object', properties: { id: { type: 'string' }, 'max-n': { type: 'number' } }, required: ['id'] },
      '{ id: string; "max-n"?: number }',
    ],
    [{ properties: { a: {} } }, '{ a?: unknown }'],
    [{ description: 'anything' }, 'unknown'],
    [true, 'unknown'],
  ])('types the schema %j as %s', (schema, type) => {
    expect(typeOf(schema)).toBe(type);
  });

  it('reads a nesting deeper than four levels as unknown', () => {
    const deep = {
      type: 'array',
      items: {
        type: 'array',
        items: { type: 'array', items: { type: 'array', items: { type: 'array', items: { type: 'string' } } } },
      },
    };
    expect(typeOf(deep)).toBe('unknown[][][][][]');
  });

  it("takes a description's first sentence", () => {
    expect(firstSentence('Read one note by id. Open the notebook first.')).toBe('Read one note by id.');
    expect(firstSentence('Lists notes\nwith ids')).toBe('Lists notes');
    expect(firstSentence('v1.2 of the tool')).toBe('v1.2 of the tool');
    expect(firstSentence(undefined)).toBe('');
  });

  it('declares a tool as a typed async function of tools, destructuring its arguments where their names allow', () => {
    const tool = (name: string, parameters?: Record<string, unknown>, description?: string) => ({
      name,
      ...(description ? { description } : {}),
      ...(parameters ? { parameters } : {}),
    });
    const id = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    expect(declaration(tool('notes_read', id, 'Read one note by id. More.'))).toBe(
      '/** Read one note by id. */\ntools.notes_read({ id }: { id: string }): Promise<unknown>;',
    );
    expect(declaration(tool('clock-now'))).toBe('tools["clock-now"](args: Record<string, unknown>): Promise<unknown>;');
    expect(declaration(tool('x', { type: 'object', properties: { 'a-b': { type: 'string' } } }, 'Ends */ here'))).toBe(
      '/** Ends * / here */\ntools.x(args: { "a-b"?: string }): Promise<unknown>;',
    );
  });

  it('offers run_code with { code: string }, its limits and every tool declared', () => {
    const limits = { timeoutSec: 10, memoryMb: 64, maxCalls: 50 };
    const tool = runCodeTool([{ name: 'clock_now', description: 'The time.' }], limits);
    expect(tool.name).toBe('run_code');
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { code: { type: 'string', description: 'The body of an async JavaScript function' } },
      required: ['code'],
      additionalProperties: false,
    });
    expect(tool.description).toContain('Limits: 10 s, 64 MiB, 50 tool calls.');
    expect(tool.description).toMatch(
      /\n\n\/\*\* The time\. \*\/\ntools\.clock_now\(args: Record<string, unknown>\): Promise<unknown>;$/,
    );
    expect(runCodeTool([], limits).description).toMatch(/\(this binding offers no tools\)$/);
  });

  it('with tool search, declares only the tools kept from turn 1 and sends the model to tool_search for the others', () => {
    const limits = { timeoutSec: 10, memoryMb: 64, maxCalls: 50 };
    const find =
      'Find the tools with tool_search: its answer declares the tools found, which your programs can call from then on.';
    const described = (tools: LoopTool[]) => runCodeTool(tools, limits, true).description ?? '';
    expect(described([]).endsWith(`tool calls.\n\n${find}`)).toBe(true);
    expect(
      described([{ name: 'repo_open' }]).endsWith(
        `tool calls.\n\ntools.repo_open(args: Record<string, unknown>): Promise<unknown>;\n${find}`,
      ),
    ).toBe(true);
  });
});
