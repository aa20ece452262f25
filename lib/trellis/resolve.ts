import type { Logger, Trellis } from '../types';
import { openMcpTrellis } from './mcp';
import type { ValidTrellisOption } from './mcp-options';
import { canonicalJson } from '../shared/canonical-json';
import type { SignIns } from './oauth/sign-ins';

/**
 * Turns `trellis` options into Trellis instances, one per distinct MCP server: bindings whose `mcp` options are
 * equal share one instance, so one connection (one stdio child). Instances made here go to `owned` to be closed.
 */
export function trellisResolver(
  logger: Logger,
  owned: Trellis[],
  signIns?: SignIns,
): (option: ValidTrellisOption) => Trellis {
  const byAddress = new Map<string, Trellis>();
  return function resolveTrellis(option) {
    if ('callTool' in option) return option;
    const key = canonicalJson(option.mcp);
    let trellis = byAddress.get(key);
    if (!trellis) {
      trellis = openMcpTrellis({ ...option.mcp, logger }, signIns);
      byAddress.set(key, trellis);
      owned.push(trellis);
    }
    return trellis;
  };
}
