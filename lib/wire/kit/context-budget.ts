import type { LoopSetup } from '../../loop/wire';
import type { LoopStats } from '../../loop/context';
import type { TurnBody, TurnRequest } from '../../loop/turn-body';

const bytes = (text: string) => Buffer.byteLength(text);

/** How one wire's items hold tool results: where they are, which tool each answers, and the item with them elided. */
export interface Elision<Item> {
  /** the log line's `wire` */
  readonly wire: string;
  /** the tool each call id names, in `items` */
  names(items: readonly Item[]): ReadonlyMap<unknown, unknown>;
  /** where the latest turn's results begin: what the model is about to read stays whole */
  latest(items: readonly Item[]): number;
  /** the item with each result in it elided (`elidedContent`), and how many were; undefined when none was */
  elide(item: Item, names: ReadonlyMap<unknown, unknown>): { item: Item; results: number } | undefined;
}

/**
 * A result's content replaced by a placeholder naming its tool and its size; the content itself when the placeholder
 * would not be shorter (a result is never replaced by a longer text).
 */
export function elidedContent(content: unknown, tool: unknown): unknown {
  const text = typeof content === 'string' ? content : (JSON.stringify(content) ?? '');
  const placeholder = `[earlier result of '${String(tool ?? 'unknown')}' elided: ${bytes(text)} bytes]`;
  return bytes(JSON.stringify(placeholder)) < bytes(JSON.stringify(content) ?? '') ? placeholder : content;
}

/** Where a turn's request comes from: the TurnBody, or the budget wrapped around it. */
export interface TurnSource<Item> {
  request(items: Item[]): TurnRequest;
}

/**
 * `maxContextBytes`, on every wire: before a turn whose request would pass it, the oldest tool results of this loop
 * (never the client's, never the latest turn's) are replaced by a short placeholder, oldest first, until the request
 * fits. The items stay where they are, so every call keeps its answer. A request that still does not fit goes as it
 * is: the loop never drops.
 */
export class ContextBudget<Item> implements TurnSource<Item> {
  /** every item before this index, from `ownFrom` on, is elided already */
  private next: number;
  private warned = false;

  constructor(
    private readonly body: TurnBody,
    private readonly elision: Elision<Item>,
    private readonly maxBytes: number,
    ownFrom: number,
    private readonly stats: LoopStats,
    private readonly log: { logger: LoopSetup['logger']; loopId: string },
  ) {
    this.next = ownFrom;
  }

  request(items: Item[]): TurnRequest {
    const request = this.body.request(items);
    let over = bytes(request.json) - this.maxBytes;
    if (over <= 0) return request;
    const names = this.elision.names(items);
    const latest = this.elision.latest(items);
    let first: number | undefined;
    for (; this.next < latest && over > 0; this.next++) {
      const elided = this.elision.elide(items[this.next], names);
      if (elided === undefined) continue;
      const saved = bytes(JSON.stringify(items[this.next])) - bytes(JSON.stringify(elided.item));
      if (saved <= 0) continue;
      first ??= this.next;
      over -= saved;
      items[this.next] = elided.item;
      this.stats.elided += elided.results;
    }
    if (over > 0 && !this.warned) {
      this.warned = true;
      this.log.logger.warn('agent-loop context passes maxContextBytes with every earlier result elided', {
        loopId: this.log.loopId,
        wire: this.elision.wire,
        maxContextBytes: this.maxBytes,
        overBytes: over,
      });
    }
    if (first === undefined) return request;
    this.body.rewind(first);
    return this.body.request(items);
  }
}

/** The loop's turn requests: `body` as it is, or within `maxContextBytes` when the loop has one. */
export function budgeted<Item>(
  body: TurnBody,
  elision: Elision<Item>,
  ownFrom: number,
  setup: Pick<LoopSetup, 'maxContextBytes' | 'stats' | 'logger' | 'loopId'>,
): TurnSource<Item> {
  if (setup.maxContextBytes === undefined) return body;
  return new ContextBudget(body, elision, setup.maxContextBytes, ownFrom, setup.stats, {
    logger: setup.logger,
    loopId: setup.loopId,
  });
}
