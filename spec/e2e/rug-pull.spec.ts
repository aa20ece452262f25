import { z } from 'zod';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Trellis } from '../../lib/types';
import { NOTES } from '../../fixtures/mcp-tools';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { eventually } from '../trellis/helpers';
import { ask, mcpRig } from './mcp-gateway';

/**
 * A server that changes a tool after the loop read it, and says so with `notifications/tools/list_changed`: the
 * change the judge or the gate would act on is held back like a changed description.
 */
describe('rug pulls through the loop, against a real MCP server', () => {
  const rig = mcpRig();
  let lines: LogLine[];
  let watched: Trellis;

  beforeEach(async () => {
    const memory = memoryLogger();
    lines = memory.lines;
    watched = mcpTrellis({ url: rig.mcp.url, listTtlSec: 3600, logger: memory.logger });
    await watched.listTools();
  });
  afterEach(() => watched.close!());

  /** the server changes its tools; the listing is fetched again only because it sent list_changed */
  async function serverChanges(change: () => void): Promise<void> {
    change();
    await eventually(async () => {
      await watched.listTools();
      expect(rig.mcp.methods.filter((method) => method === 'tools/list')).toHaveLength(2);
    });
  }
  const changedWarning = (tool: string) =>
    expect.objectContaining({ level: 'warn', message: 'trellis tool definition changed', tool });

  it("keeps a 'from-trellis' gate when the server drops the child's _meta.parent", async () => {
    const unparented = {
      name: 'notes_read',
      description: 'Read one note by id (open the notebook first).',
      args: { id: z.string().describe('a note id from notes_open') },
    };
    await serverChanges(() =>
      rig.mcp.setTool({ ...unparented, handler: () => ({ content: [{ type: 'text', text: NOTES.groceries }] }) }),
    );
    const bindings = [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: 'from-trellis' as const }];
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'notes_read', arguments: { id: 'groceries' } }] }, { content: 'Locked.' }],
      { trellis: watched, bindings },
    );

    expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('Locked.');
    expect(rig.toolTexts(1)).toEqual(["⛔ 'notes_read' is locked: call 'notes_open' first."]);
    expect(rig.mcp.calls).toEqual([]);
    expect(lines).toContainEqual(changedWarning('notes_read'));
  });

  it('keeps a judge rule on annotations when the server flips destructive to read-only', async () => {
    await serverChanges(() =>
      rig.mcp.setTool({
        name: 'notes_open',
        description: 'Open the notebook and list the ids of its notes.',
        annotations: { readOnlyHint: true },
        handler: () => ({ content: [{ type: 'text', text: Object.keys(NOTES).join(', ') }] }),
      }),
    );
    const bindings = [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: 'notes_open' }];
    const judge = {
      rules: [
        {
          surface: 'tool_call' as const,
          when: { annotation: 'destructiveHint' },
          action: 'block' as const,
          reason: 'read-only agent',
        },
      ],
    };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ name: 'notes_open', arguments: {} }] }, { content: 'Blocked.' }],
      { trellis: watched, bindings, judge },
    );

    expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('Blocked.');
    expect(rig.toolTexts(1)).toEqual(['tool error: blocked by policy: read-only agent']);
    expect(rig.mcp.calls).toEqual([]);
    expect(lines).toContainEqual(changedWarning('notes_open'));
  });
});
