import { startEverythingHttp } from '../../fixtures/npm-mcp-servers';
import { mcpTrellis } from '../../lib/trellis/mcp';
import { recordingLogger } from './helpers';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('mcpTrellis close()', () => {
  it('after a call that timed out: no "connection lost" log and no timer left behind', async () => {
    const server = await startEverythingHttp();
    const logger = recordingLogger();
    const trellis = mcpTrellis({ url: server.url, logger });
    await trellis.listTools();
    const before = timers();
    await expect(trellis.callTool('trigger-long-running-operation', { duration: 30, steps: 30 }, { signal: AbortSignal.timeout(500), onProgress() {} })).rejects.toThrow();
    await trellis.close!();
    // nothing left to fire later: no reconnection timer, no probe
    expect(timers()).toBeLessThanOrEqual(before);
    await server.close();
    expect(logger.entries.filter((entry) => entry.level !== 'debug')).toEqual([]);
  });
});
