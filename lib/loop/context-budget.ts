import type { ChatMessage, Logger } from '../types';
import type { LoopStats } from './context';
import type { TurnBody, TurnRequest, TurnSource } from './turn-body';

const bytes = (text: string) => Buffer.byteLength(text);

/** The tool each tool message answers, by its call id, from the assistant messages from `from` on. */
export function toolNames(messages: readonly ChatMessage[], from: number): Map<unknown, string> {
  const names = new Map<unknown, string>();
  for (let i = from; i < messages.length; i++) messages[i].tool_calls?.forEach((call) => names.set(call.id, call.function?.name));
  return names;
}

/** The tool message with its result replaced by a placeholder naming the tool and the result's size. */
export function elide(message: ChatMessage, names: ReadonlyMap<unknown, string>): ChatMessage {
  const text = typeof message.content === 'string' ? message.content : (JSON.stringify(message.content) ?? '');
  return { ...message, content: `[earlier result of '${names.get(message.tool_call_id) ?? 'unknown'}' elided: ${bytes(text)} bytes]` };
}

function lastAssistant(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'assistant') return i;
  return -1;
}

/**
 * `maxContextBytes`: before a turn whose request would pass it, the oldest tool results of this loop (never the
 * client's, never the latest turn's) are replaced by a short placeholder, oldest first, until the request fits.
 * A request that still does not fit goes as it is: the loop never drops.
 */
export class ContextBudget implements TurnSource {
  /** every tool message before this index, from `ownFrom` on, is elided already */
  private next: number;
  private warned = false;

  constructor(
    private readonly body: TurnBody,
    private readonly maxBytes: number,
    private readonly ownFrom: number,
    private readonly stats: LoopStats,
    private readonly log: { logger: Logger; loopId: string },
  ) {
    this.next = ownFrom;
  }

  request(messages: ChatMessage[]): TurnRequest {
    const request = this.body.request(messages);
    let over = bytes(request.json) - this.maxBytes;
    if (over <= 0) return request;
    let first: number | undefined;
    const latest = lastAssistant(messages);
    const names = toolNames(messages, this.ownFrom);
    for (; this.next < latest && over > 0; this.next++) {
      const message = messages[this.next];
      if (message.role !== 'tool') continue;
      first ??= this.next;
      const elided = elide(message, names);
      over -= bytes(JSON.stringify(message)) - bytes(JSON.stringify(elided));
      messages[this.next] = elided;
      this.stats.elided++;
    }
    if (over > 0 && !this.warned) {
      this.warned = true;
      this.log.logger.warn('agent-loop context passes maxContextBytes with every earlier result elided', { loopId: this.log.loopId, maxContextBytes: this.maxBytes, overBytes: over });
    }
    if (first === undefined) return request;
    this.body.rewind(first);
    return this.body.request(messages);
  }
}
