import { localTrellis } from '../../lib/trellis/local';
import { trellisResolver } from '../../lib/trellis/resolve';
import type { Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';

describe('trellisResolver', () => {
  const owned: Trellis[] = [];
  afterEach(async () => {
    await Promise.all(owned.splice(0).map((trellis) => trellis.close?.()));
  });

  // the `trellis` option as agentLoop validated it: its defaults (listTtlSec) filled in
  it('makes one Trellis per distinct MCP server, whatever the key order, and owns it', () => {
    const resolve = trellisResolver(memoryLogger().logger, owned);
    const first = resolve({ mcp: { command: 'node', args: ['server.js'], env: { A: '1', B: '2' }, listTtlSec: 60 } });
    const same = resolve({ mcp: { env: { B: '2', A: '1' }, listTtlSec: 60, args: ['server.js'], command: 'node' } });
    const other = resolve({ mcp: { command: 'node', args: ['other.js'], listTtlSec: 60 } });
    const byUrl = resolve({ mcp: { url: 'http://127.0.0.1:4000/mcp', listTtlSec: 60 } });
    expect(same).toBe(first);
    expect(other).not.toBe(first);
    expect(resolve({ mcp: { url: 'http://127.0.0.1:4000/mcp', listTtlSec: 60 } })).toBe(byUrl);
    expect(owned).toEqual([first, other, byUrl]);
  });

  it('passes a Trellis object through, not owning it', () => {
    const given = localTrellis([]);
    expect(trellisResolver(memoryLogger().logger, owned)(given)).toBe(given);
    expect(owned).toEqual([]);
  });
});
