import type { Logger, Trellis, TrellisOption } from '../types';
import { mcpTrellis } from './mcp';

export function resolveTrellis(option: TrellisOption, logger: Logger): Trellis {
  if ('callTool' in option) return option;
  return mcpTrellis({ ...option.mcp, logger });
}
