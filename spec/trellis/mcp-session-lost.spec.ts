import { startMcpServer, type McpFixtureServer } from '../../fixtures/mcp-server';
import { mcpTrellis } from '../../lib/trellis/mcp';
import type { Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';
import { eventually } from './helpers';

const open = () => new AbortController().signal;
const CALLS = 160;

describe('mcpTrellis when the server loses its sessions under load', () => {
  let fixture: McpFixtureServer;
  let trellis: Trellis;
  beforeEach(async () => {
    fixture = await startMcpServer();
    trellis = mcpTrellis({ url: fixture.url, logger: memoryLogger().logger });
  });
  afterEach(async () => {
    await trellis.close!();
    await fixture.close();
  });

  it.each([
    ['in flight', async () => eventually(() => expect(fixture.calls.length).toBe(1 + CALLS / 2), 20_000)],
    ['about to be sent', async () => undefined],
  ])(
    're-initialises once, and every call %s when it is lost is answered after one retry',
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
