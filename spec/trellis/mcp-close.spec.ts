import { createHook } from 'node:async_hooks';
import { startEverythingHttp } from '../../fixtures/npm-mcp-servers';
import { mcpTrellis } from '../../lib/trellis/mcp';
import { memoryLogger } from '../helpers/memory-logger';

/** The timers the MCP client (SDK or ours) starts from now on that are still armed and would hold the process. */
function clientTimers() {
  const live = new Map<number, { timer: NodeJS.Timeout; stack: string }>();
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  const hook = createHook({
    init(id, type, _trigger, resource) {
      const stack = type === 'Timeout' ? (new Error().stack ?? '') : '';
      if (/@modelcontextprotocol|lib\/trellis/.test(stack)) live.set(id, { timer: resource as NodeJS.Timeout, stack });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return {
    async armed(): Promise<string[]> {
      await new Promise((resolve) => setImmediate(resolve));
      return [...live.values()].filter(({ timer }) => timer.hasRef()).map(({ stack }) => stack);
    },
    stop() {
      hook.disable();
      Error.stackTraceLimit = stackTraceLimit;
    },
  };
}

describe('mcpTrellis close()', () => {
  it('after a call that timed out on a resumable stream: no "connection lost" log and no timer left to hold the process', async () => {
    const server = await startEverythingHttp();
    const { logger, lines } = memoryLogger();
    const trellis = mcpTrellis({ url: server.url, logger });
    await trellis.listTools();
    const timers = clientTimers();
    try {
      await expect(
        trellis.callTool(
          'trigger-long-running-operation',
          { duration: 30, steps: 30 },
          { signal: AbortSignal.timeout(500) },
        ),
      ).rejects.toThrow();
      await trellis.close!();
      expect(await timers.armed()).toEqual([]);
    } finally {
      timers.stop();
      await server.close();
    }
    expect(lines.filter((line) => line.level !== 'debug')).toEqual([]);
  });
});
