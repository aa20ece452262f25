import type { Trellis, TrellisOption } from '../types';

export function resolveTrellis(option: TrellisOption): Trellis {
  if ('callTool' in option) return option;
  throw new Error('mcp trellis not available yet');
}
