import type { TokenUsage } from '../../loop/wire';
import type { UsageMetadata } from './types';

const COUNTED = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'thoughtsTokenCount',
  'cachedContentTokenCount',
  'toolUsePromptTokenCount',
] as const;

/**
 * Token counts summed over the loop's turns (each turn's own, never a stream's cumulative chunks); a field only once a
 * turn reported it.
 */
export function addUsageMetadata(
  total: UsageMetadata | undefined,
  usage: UsageMetadata | undefined,
): UsageMetadata | undefined {
  if (!usage) return total;
  const sum: UsageMetadata = {};
  for (const field of COUNTED) {
    const [a, b] = [total?.[field], usage[field]];
    if (typeof a === 'number' || typeof b === 'number') sum[field] = (a ?? 0) + (b ?? 0);
  }
  return sum;
}

/** What a token budget counts of one turn: the total the API reports (thoughts and tool prompts included). */
export function tokenUsage(usage: UsageMetadata | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const input = usage.promptTokenCount ?? 0;
  const output = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  return { input, output, total: usage.totalTokenCount ?? input + output };
}
