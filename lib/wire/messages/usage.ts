import type { MessagesUsage } from './types';

const COUNTED = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** A Message's token counts summed over the loop's turns; the cache fields only once a turn reported them. */
export function addMessagesUsage(
  total: MessagesUsage | undefined,
  usage: MessagesUsage | undefined,
): MessagesUsage | undefined {
  if (!usage) return total;
  const sum: MessagesUsage = { input_tokens: 0, output_tokens: 0 };
  for (const field of COUNTED) {
    const [a, b] = [total?.[field], usage[field]];
    if (typeof a === 'number' || typeof b === 'number' || field === 'input_tokens' || field === 'output_tokens')
      sum[field] = (a ?? 0) + (b ?? 0);
  }
  return sum;
}

/** Every token a turn cost, cached reads and writes included: what a token budget counts. */
export const totalTokens = (usage: MessagesUsage | undefined): number =>
  COUNTED.reduce((sum, field) => sum + (usage?.[field] ?? 0), 0);
