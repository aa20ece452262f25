import { agentLoop } from '../../lib';
import { FROM_TRELLIS, Hierarchy } from '../../lib/trellis/hierarchy';
import { toolOutcomeText } from '../../lib/loop/tool-outcome';
import { ToolCatalog } from '../../lib/trellis/catalog';
import type { Tool, Trellis } from '../../lib/types';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { eventually } from './helpers';

const tool = (name: string, parent?: string): Tool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  ...(parent ? { _meta: { parent } } : {}),
});
const notes = new Hierarchy([{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now', 'notes_search']);
const offeredNames = async (catalog: ToolCatalog) => (await catalog.tools()).map((offered) => offered.name);
const LEFT_OUT = 'agent-loop hierarchy names tools Trellis does not list; they are left out';

/** A Trellis whose listing the test sets: a list of tools, or an error to throw. */
function scriptedTrellis(listing: Tool[] | Error): Trellis & { listing: Tool[] | Error } {
  return {
    listing,
    async listTools() {
      if (this.listing instanceof Error) throw this.listing;
      return this.listing;
    },
    callTool: () => Promise.reject(new Error('not called here')),
  };
}

describe('ToolCatalog', () => {
  let logger: ReturnType<typeof memoryLogger>['logger'];
  let lines: LogLine[];
  beforeEach(() => {
    ({ logger, lines } = memoryLogger());
  });

  it("keeps each tool's annotations for the judge, MCP's defaults filled in", async () => {
    const drop = { ...tool('db_drop'), annotations: { destructiveHint: true, title: 'Drop' } };
    const read = { ...tool('db_read'), annotations: { readOnlyHint: true } };
    const catalog = new ToolCatalog(scriptedTrellis([drop, read, tool('clock_now')]), FROM_TRELLIS, 'db', logger);
    expect(catalog.annotations('db_read')).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    await catalog.tools();
    expect(catalog.annotations('db_drop')).toEqual({
      title: 'Drop',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(catalog.annotations('db_read')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(catalog.annotations('clock_now')).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('leaves out the tools Trellis does not list and the children they would unlock, warning once', async () => {
    const trellis = scriptedTrellis([tool('notes_read'), tool('clock_now')]);
    const catalog = new ToolCatalog(trellis, notes, 'notes', logger);
    expect(await catalog.tools()).toEqual([
      { name: 'clock_now', description: 'clock_now tool', parameters: { type: 'object' } },
    ]);
    expect(catalog.hierarchy.tools).toEqual(['clock_now']);
    trellis.listing = [tool('notes_read'), tool('clock_now')];
    await catalog.tools();
    expect(lines).toEqual([
      {
        level: 'warn',
        message: LEFT_OUT,
        binding: 'notes',
        missing: ['notes_open', 'notes_search'],
        leftOut: ['notes_open', 'notes_read', 'notes_search'],
      },
    ]);
  });

  it('offers the configured names with an open schema while Trellis has never listed, then the last listing', async () => {
    const trellis = scriptedTrellis(new Error('Trellis unreachable at http://127.0.0.1:9/mcp (ECONNREFUSED)'));
    const catalog = new ToolCatalog(trellis, notes, 'notes', logger);
    expect(await catalog.tools()).toEqual(
      ['notes_open', 'notes_read', 'clock_now', 'notes_search'].map((name) => ({
        name,
        parameters: { type: 'object', additionalProperties: true },
      })),
    );
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'agent-loop trellis listing failed; offering the configured tool names with an open schema',
        binding: 'notes',
        reason: 'Trellis unreachable at http://127.0.0.1:9/mcp (ECONNREFUSED)',
      },
    ]);
    trellis.listing = [tool('notes_open'), tool('notes_read'), tool('clock_now'), tool('notes_search')];
    const listed = await catalog.tools();
    trellis.listing = new Error('down again');
    expect(await catalog.tools()).toBe(listed);
    expect(listed[0].description).toBe('notes_open tool');
    expect(lines[1]).toEqual({
      level: 'warn',
      message: 'agent-loop trellis listing failed; offering the last known tools',
      binding: 'notes',
      reason: 'down again',
    });
  });

  it("says so when a 'from-trellis' binding has nothing to offer because Trellis never listed, and never shows an empty valid-tools list", async () => {
    const trellis = scriptedTrellis(new Error('Trellis unreachable at http://127.0.0.1:9/mcp (ECONNREFUSED)'));
    const catalog = new ToolCatalog(trellis, FROM_TRELLIS, 'all', logger);
    expect(await catalog.tools()).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'warn',
        message:
          "agent-loop trellis listing failed; it has never listed its tools, so this 'from-trellis' binding offers none until it does",
        binding: 'all',
        reason: 'Trellis unreachable at http://127.0.0.1:9/mcp (ECONNREFUSED)',
      },
    ]);
    expect(toolOutcomeText(catalog.unknownTool('x'))).toBe(
      "tool error: unknown tool 'x'; Trellis has not listed its tools yet (Trellis unreachable at http://127.0.0.1:9/mcp (ECONNREFUSED))",
    );
    trellis.listing = [];
    await catalog.tools();
    expect(toolOutcomeText(catalog.unknownTool('x'))).toBe(
      "tool error: unknown tool 'x'; this binding offers no tools",
    );
    trellis.listing = [tool('clock_now')];
    await catalog.tools();
    expect(toolOutcomeText(catalog.unknownTool('x'))).toBe("tool error: unknown tool 'x'; valid tools: clock_now");
  });

  it("redacts credentials in a Trellis' listing error, in the log and in the model's text", async () => {
    const trellis = scriptedTrellis(
      new Error(
        'tools API at https://tools.example/list?key=k-0f9e8d7c said: Authorization: Bearer sk-live0123456789abcdefXYZ is revoked',
      ),
    );
    const catalog = new ToolCatalog(trellis, FROM_TRELLIS, 'all', logger);
    await catalog.tools();
    const said = 'tools API at https://tools.example/list?[redacted] said: Authorization: Bearer [redacted] is revoked';
    expect(lines[0]).toEqual({
      level: 'warn',
      message:
        "agent-loop trellis listing failed; it has never listed its tools, so this 'from-trellis' binding offers none until it does",
      binding: 'all',
      reason: said,
    });
    expect(toolOutcomeText(catalog.unknownTool('x'))).toBe(
      `tool error: unknown tool 'x'; Trellis has not listed its tools yet (${said})`,
    );
  });

  it("builds the tree from the tools' _meta.parent with from-trellis, leaving out tools that could never unlock", async () => {
    const trellis = scriptedTrellis([
      tool('repo_open'),
      tool('repo_read', 'repo_open'),
      tool('orphan', 'gone'),
      tool('ping', 'pong'),
      tool('pong', 'ping'),
      tool('clock_now'),
    ]);
    const catalog = new ToolCatalog(trellis, FROM_TRELLIS, 'repo', logger);
    expect(catalog.hierarchy.tools).toEqual([]);
    expect(await offeredNames(catalog)).toEqual(['repo_open', 'repo_read', 'clock_now']);
    expect(toolOutcomeText(catalog.hierarchy.gate('repo_read', new Set())!)).toBe(
      "⛔ 'repo_read' is locked: call 'repo_open' first.",
    );
    expect(lines).toEqual([
      { level: 'warn', message: LEFT_OUT, binding: 'repo', missing: ['gone'], leftOut: ['orphan', 'ping', 'pong'] },
    ]);
  });

  it('follows a changed listing: a tool that reappears is offered again, a new gap is warned of', async () => {
    const trellis = scriptedTrellis([tool('notes_open'), tool('notes_read'), tool('clock_now'), tool('notes_search')]);
    const catalog = new ToolCatalog(trellis, notes, 'notes', logger);
    expect(await offeredNames(catalog)).toEqual(['notes_open', 'notes_read', 'clock_now', 'notes_search']);
    trellis.listing = [tool('notes_open'), tool('notes_read'), tool('notes_search')];
    expect(await offeredNames(catalog)).toEqual(['notes_open', 'notes_read', 'notes_search']);
    trellis.listing = [tool('notes_open'), tool('notes_read'), tool('clock_now'), tool('notes_search')];
    expect(await offeredNames(catalog)).toEqual(['notes_open', 'notes_read', 'clock_now', 'notes_search']);
    expect(lines.map((line) => line.missing)).toEqual([['clock_now']]);
  });
});

describe('agentLoop at start-up', () => {
  it('warns of hierarchy names Trellis does not list before any request', async () => {
    const { logger, lines } = memoryLogger();
    agentLoop({
      trellis: scriptedTrellis([tool('clock_now')]),
      bindings: [{ name: 'clock', match: { model: '*' }, hierarchy: ['clock_now', 'calendar'] }],
      logger,
    });
    await eventually(() =>
      expect(lines).toEqual([
        { level: 'warn', message: LEFT_OUT, binding: 'clock', missing: ['calendar'], leftOut: ['calendar'] },
      ]),
    );
  });

  it('starts even when Trellis cannot list, logging why', async () => {
    const { logger, lines } = memoryLogger();
    const unreachable: Trellis = {
      listTools() {
        throw new Error('no route to Trellis');
      },
      callTool: () => Promise.reject(new Error('not called here')),
    };
    expect(() =>
      agentLoop({
        trellis: unreachable,
        bindings: [{ name: 'clock', match: { model: '*' }, hierarchy: 'clock_now' }],
        logger,
      }),
    ).not.toThrow();
    await eventually(() => expect(lines.map((line) => line.reason)).toEqual(['no route to Trellis']));
  });
});
