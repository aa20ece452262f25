import { deltaBytes, excerpt } from '../../shared/deltas';
import { isObject } from '../../shared/fields';
import { HeldBytes } from '../../shared/held-bytes';
import { SseEvents, sseJson } from '../kit/sse';
import { wellFormedReply } from './model-reply';
import type { AnthropicMessage, BlockEvent, ContentBlock, MessagesUsage } from './types';

/** Takes the events of the blocks the client may see, as they arrive; a promise says to wait (a slow client). */
export type BlockSink = (event: BlockEvent) => Promise<void> | void;

/** No real Message holds this many blocks: a stream that says otherwise is broken (or hostile), not sparse. */
const MAX_BLOCK_INDEX = 255;

type Event = Record<string, unknown> & { type?: unknown };

/** Each field the event reports replaces the one before (message_delta's usage is cumulative); nulls do not. */
function mergedUsage(usage: MessagesUsage | undefined, update: unknown): MessagesUsage | undefined {
  if (!isObject(update)) return usage;
  const merged: MessagesUsage = { ...usage };
  for (const [key, value] of Object.entries(update)) if (value !== null && value !== undefined) merged[key] = value;
  return merged;
}

/**
 * One streamed Message put back together, every block whole: text, thinking with its signature, redacted thinking,
 * a tool_use with its input parsed from the `input_json_delta` parts, and any other block with the fields it started
 * with.
 */
class StreamedMessage {
  private message?: AnthropicMessage;
  private readonly blocks: ContentBlock[] = [];
  private readonly inputJson = new Map<number, string>();
  /** the index of each block the client sees: a tool_use is held back, the loop decides whose call it is */
  private readonly shown = new Set<number>();
  stopped = false;

  /** `held`: what the blocks keep, within the turn's bound */
  constructor(private readonly held: HeldBytes) {}

  add(event: Event, sink: BlockSink): Promise<void> | void {
    switch (event.type) {
      case 'message_start':
        if (!isObject(event.message)) throw new Error('the model stream sent a message_start without its message');
        this.message = { ...(event.message as AnthropicMessage), content: [] };
        return;
      case 'content_block_start':
        return this.start(event as BlockEvent & { type: 'content_block_start' }, sink);
      case 'content_block_delta':
        return this.delta(event as BlockEvent & { type: 'content_block_delta' }, sink);
      case 'content_block_stop':
        return this.stop(event as BlockEvent & { type: 'content_block_stop' }, sink);
      case 'message_delta': {
        const message = this.started();
        const delta: Record<string, unknown> = isObject(event.delta) ? event.delta : {};
        for (const [key, value] of Object.entries(delta)) message[key] = value;
        message.usage = mergedUsage(message.usage, event.usage);
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
      case 'error': {
        const error = isObject(event.error) ? event.error : {};
        const what = [error.type, error.message].filter((part) => typeof part === 'string').join(': ');
        throw new Error(`the model stream sent an error: ${what || excerpt(JSON.stringify(event))}`);
      }
      default:
        return; // ping, and events newer than this reader
    }
  }

  result(): AnthropicMessage {
    const message = this.started();
    return { ...message, content: this.blocks.filter(Boolean) };
  }

  private started(): AnthropicMessage {
    if (!this.message) throw new Error('the model stream sent content before message_start');
    return this.message;
  }

  private indexOf(event: { index?: unknown }): number {
    if (
      typeof event.index !== 'number' ||
      !Number.isInteger(event.index) ||
      event.index < 0 ||
      event.index > MAX_BLOCK_INDEX
    )
      throw new Error(`the model stream sent a block event without a valid index: ${excerpt(JSON.stringify(event))}`);
    return event.index;
  }

  private start(event: BlockEvent & { type: 'content_block_start' }, sink: BlockSink): Promise<void> | void {
    this.started();
    const index = this.indexOf(event);
    if (!isObject(event.content_block) || typeof event.content_block.type !== 'string')
      throw new Error('the model stream started a block without a type');
    const block: ContentBlock = { ...(event.content_block as ContentBlock) };
    this.held.add(deltaBytes(block));
    this.blocks[index] = block;
    if (block.type === 'tool_use') return;
    this.shown.add(index);
    return sink({ type: 'content_block_start', index, content_block: { ...block } });
  }

  private delta(event: BlockEvent & { type: 'content_block_delta' }, sink: BlockSink): Promise<void> | void {
    const index = this.indexOf(event);
    const block = this.blocks[index];
    const delta: Record<string, unknown> = isObject(event.delta) ? event.delta : {};
    if (!block) throw new Error(`the model stream sent a delta for block ${index}, which never started`);
    this.held.add(deltaBytes(delta));
    switch (delta.type) {
      case 'text_delta':
        block.text = `${typeof block.text === 'string' ? block.text : ''}${String(delta.text ?? '')}`;
        break;
      case 'thinking_delta':
        block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${String(delta.thinking ?? '')}`;
        break;
      case 'signature_delta':
        block.signature = delta.signature;
        break;
      case 'input_json_delta':
        this.inputJson.set(index, (this.inputJson.get(index) ?? '') + String(delta.partial_json ?? ''));
        break;
      case 'citations_delta':
        block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
        break;
    }
    if (this.shown.has(index))
      return sink({ type: 'content_block_delta', index, delta: { ...delta, type: String(delta.type) } });
  }

  private stop(event: BlockEvent & { type: 'content_block_stop' }, sink: BlockSink): Promise<void> | void {
    const index = this.indexOf(event);
    const block = this.blocks[index];
    const json = this.inputJson.get(index);
    if (block && json !== undefined && json.trim() !== '') {
      try {
        block.input = JSON.parse(json);
      } catch {
        throw new Error(
          `the model stream sent the input of '${String(block.name)}' as JSON that does not parse: ${excerpt(json)}`,
        );
      }
    }
    if (this.shown.has(index)) return sink({ type: 'content_block_stop', index });
  }
}

/**
 * Reads a `stream: true` Message as it arrives, handing the events of every block but the model's tool_use blocks
 * to `sink`; an `error` event, a malformed event, a stream that ends before `message_stop`, or a Message the loop
 * cannot act on (`wellFormedReply`) throws; the blocks it assembles are kept within `held`.
 */
export async function streamedReply(
  stream: AsyncIterable<Buffer | string>,
  sink: BlockSink,
  held = new HeldBytes(),
): Promise<AnthropicMessage> {
  const reply = new StreamedMessage(held);
  const events = new SseEvents(held.maxBytes);
  for await (const part of stream)
    for (const data of events.of(part)) {
      const caughtUp = reply.add(sseJson(data, 'event') as Event, sink);
      if (caughtUp) await caughtUp;
      // as a JSON reply is: a tool_use without a string id or name can be neither run nor handed back
      if (reply.stopped) return wellFormedReply({ ...reply.result(), type: 'message' });
    }
  throw new Error('the model stream ended without message_stop');
}
