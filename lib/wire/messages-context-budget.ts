import type { LoopStats } from '../loop/context';
import type { TurnBody, TurnRequest } from '../loop/turn-body';
import type { ChatMessage, Logger } from '../types';
import { blocksOf, type MessageParam } from './messages-request';

const bytes = (text: string) => Buffer.byteLength(text);

/** The tool_result block with its content replaced by a placeholder naming the tool and the result's size. */
export function elidedResult(block: Record<string, unknown>, names: ReadonlyMap<unknown, unknown>): Record<string, unknown> {
  const size = bytes(typeof block.content === 'string' ? block.content : (JSON.stringify(block.content) ?? ''));
  return { ...block, content: `[earlier result of '${String(names.get(block.tool_use_id) ?? 'unknown')}' elided: ${size} bytes]` };
}

/** The tool each tool_use id names, in `messages`. */
export function toolUseNames(messages: readonly MessageParam[]): Map<unknown, unknown> {
  return new Map(messages.flatMap((message) => blocksOf(message.content).flatMap((block) => (block.type === 'tool_use' ? [[block.id, block.name] as const] : []))));
}

/**
 * `maxContextBytes` on the Messages wire: before a turn whose request would pass it, the loop's oldest tool results
 * (never the client's, never the latest turn's) are replaced by a short placeholder, oldest first, until the request
 * fits; one that still does not fit goes as it is. The blocks stay where they are, so every tool_use keeps its answer.
 */
export class MessagesContextBudget {
  /** every user message before this index, from `ownFrom` on, is elided already */
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

  request(messages: MessageParam[]): TurnRequest {
    const asSent = messages as unknown as ChatMessage[];
    const request = this.body.request(asSent);
    let over = bytes(request.json) - this.maxBytes;
    if (over <= 0) return request;
    const names = toolUseNames(messages);
    let first: number | undefined;
    // the latest results (the last message) are what the model is about to read: they stay
    for (; this.next < messages.length - 1 && over > 0; this.next++) {
      const message = messages[this.next];
      if (message.role !== 'user' || !Array.isArray(message.content)) continue;
      const content = (message.content as Record<string, unknown>[]).map((block) => (block?.type === 'tool_result' ? elidedResult(block, names) : block));
      const elided = { ...message, content };
      const saved = bytes(JSON.stringify(message)) - bytes(JSON.stringify(elided));
      if (saved <= 0) continue;
      first ??= this.next;
      over -= saved;
      messages[this.next] = elided;
      this.stats.elided += content.filter((block) => block?.type === 'tool_result').length;
    }
    if (over > 0 && !this.warned) {
      this.warned = true;
      this.log.logger.warn('agent-loop context passes maxContextBytes with every earlier result elided', { loopId: this.log.loopId, wire: 'messages', maxContextBytes: this.maxBytes, overBytes: over });
    }
    if (first === undefined) return request;
    this.body.rewind(first);
    return this.body.request(asSent);
  }
}
