import { elidedContent, type Elision } from '../kit/context-budget';
import type { ResponseItem } from './types';

/** where the latest turn's answers begin: the item after its last output item */
function latestAnswers(items: readonly ResponseItem[]): number {
  let i = items.length;
  while (i > 0 && items[i - 1].type === 'function_call_output') i--;
  return i;
}

/**
 * Responses (when each turn carries the whole input): a `function_call_output` item is one result, its output elided
 * where it stands, so every `function_call` keeps its answer.
 */
export const elision: Elision<ResponseItem> = {
  wire: 'responses',
  names: (items) =>
    new Map(items.filter((item) => item.type === 'function_call').map((item) => [item.call_id, item.name])),
  latest: latestAnswers,
  elide(item, names) {
    if (item.type !== 'function_call_output') return undefined;
    const output = elidedContent(item.output, names.get(item.call_id));
    return output === item.output ? undefined : { item: { ...item, output }, results: 1 };
  },
};
