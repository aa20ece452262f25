import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Trellis } from '../../lib/types';
import { memoryLogger, type LogLine } from '../helpers/memory-logger';
import { eventually } from './helpers';

const open = () => new AbortController().signal;
const CALLS = 160;

describe('mcpTrellis when the server loses its sessions', () => {
  let fixture: McpFixtureServer;
  let trellis: Trellis;
  let lines: LogLine[];
  beforeEach(async () => {
    fixture = await startMcpServer();
    const memory = memoryLogger();
    lines = memory.lines;
    trellis = mcpTrellis({ url: fixture.url, logger: memory.logger });
  });
  afterEach(async () => {
    await trellis.close!();
    await fixture.close();
  });

  it('re-initialises a lost session once, transparently', async () => {
    const resilient = trellis;
    await resilient.callTool('clock_now', {}, { signal: open() });
    await fixture.restart();
    await expect(resilient.callTool('notes_open', {}, { signal: open() })).resolves.toEqual({
      content: [{ type: 'text', text: 'note ids: welcome, groceries, standup' }],
    });
    expect(fixture.methods.filter((method) => method === 'initialize')).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'trellis session lost; re-initialising' }),
    );
  });

  it('gives up with a readable reason when the session cannot be re-initialised', async () => {
    const stranded = trellis;
    await stranded.listTools();
    fixture.failWith(404);
    await expect(stranded.callTool('clock_now', {}, { signal: open() })).rejects.toThrow(
      `Trellis at ${fixture.url} answered HTTP 404 (failing on purpose)`,
    );
    // two connects, each a `server/discover` probe and an `initialize`: the second one fails, and no third follows
    expect(fixture.headers.filter((headers) => headers['mcp-session-id'] === undefined).length).toBe(4);
  });

  it.each([
    ['in flight', async () => eventually(() => expect(fixture.calls.length).toBe(1 + CALLS / 2), 20_000)],
    ['about to be sent', async () => undefined],
  ])(
    'under load, re-initialises once, and every call %s when it is lost is answered after one retry',
    async (_case, beforeRestart) => {
      await trellis.callTool('clock_now', {}, { signal: open() });
      // half the calls are running on the server when it drops every session, half come just after
      const first = Array.from({ length: CALLS / 2 }, () => trellis.callTool('slow', { ms: 200 }, { signal: open() }));
      await beforeRestart();
      await fixture.restart();
      const second = Array.from({ length: CALLS / 2 }, () => trellis.callTool('clock_now', {}, { signal: open() }));

      const answers = await Promise.allSettled([...first, ...second]);
      const texts = answers.map((answer) =>
        answer.status === 'fulfilled'
          ? (answer.value.content[0] as { text: string }).text
          : `rejected: ${(answer.reason as Error).message}`,
      );
      expect(texts).toEqual([
        ...Array(CALLS / 2).fill('done after 200ms'),
        ...Array(CALLS / 2).fill('2025-01-01T12:00:00.000Z'),
      ]);
      expect(fixture.methods.filter((method) => method === 'initialize')).toHaveLength(2);
    },
    60_000,
  );
});
