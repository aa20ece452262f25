import type { LoopStats } from '../loop/context';
import type { TurnBody, TurnRequest } from '../loop/turn-body';
import type { Logger } from '../types';
import type { ResponseItem } from './responses-items';

const bytes = (text: string) => Buffer.byteLength(text);

/** The `function_call_output` item with its output replaced by a placeholder naming the tool and the output's size. */
function elidedOutput(item: ResponseItem, names: ReadonlyMap<unknown, unknown>): ResponseItem {
  const size = bytes(typeof item.output === 'string' ? item.output : (JSON.stringify(item.output) ?? ''));
  return { ...item, output: `[earlier result of '${String(names.get(item.call_id) ?? 'unknown')}' elided: ${size} bytes]` };
}

/** where the latest turn's answers begin: the item after its last output item */
function latestAnswers(items: readonly ResponseItem[]): number {
  let i = items.length;
  while (i > 0 && items[i - 1].type === 'function_call_output') i--;
  return i;
}

/**
 * `maxContextBytes` on the Responses wire (when each turn carries the whole input): before a turn whose request would
 * pass it, the loop's oldest `function_call_output` items (never the client's, never the latest turn's) get a short
 * placeholder as their output, oldest first, until the request fits; one that still does not fit goes as it is.
 * The items stay where they are, so every `function_call` keeps its answer.
 */
export class ResponsesContextBudget {
  /** every item before this index, from `ownFrom` on, is elided already */
  private next: number;
  private warned = false;

  constructor(
    private readonly body: TurnBody,
    private readonly maxBytes: number,
    ownFrom: number,
    private readonly stats: LoopStats,
    private readonly log: { logger: Logger; loopId: string },
  ) {
    this.next = ownFrom;
  }

  request(items: ResponseItem[]): TurnRequest {
    const request = this.body.request(items);
    let over = bytes(request.json) - this.maxBytes;
    if (over <= 0) return request;
    const names = new Map(items.filter((item) => item.type === 'function_call').map((item) => [item.call_id, item.name]));
    const latest = latestAnswers(items);
    let first: number | undefined;
    for (; this.next < latest && over > 0; this.next++) {
      const item = items[this.next];
      if (item.type !== 'function_call_output') continue;
      const elided = elidedOutput(item, names);
      const saved = bytes(JSON.stringify(item)) - bytes(JSON.stringify(elided));
      if (saved <= 0) continue;
      first ??= this.next;
      over -= saved;
      items[this.next] = elided;
      this.stats.elided++;
    }
    if (over > 0 && !this.warned) {
      this.warned = true;
      this.log.logger.warn('agent-loop context passes maxContextBytes with every earlier result elided', { loopId: this.log.loopId, wire: 'responses', maxContextBytes: this.maxBytes, overBytes: over });
    }
    if (first === undefined) return request;
    this.body.rewind(first);
    return this.body.request(items);
  }
}
