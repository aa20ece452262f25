import type { Response } from 'express';
import { EventStream, EventStreamWriter } from '../kit/event-stream';
import type { BlockEvent, ContentBlock, MessagesUsage, ToolUseBlock } from './types';

export interface MessagesStreamOptions {
  keepAliveSec: number;
  /** the loop's signal: a loop that ends stops waiting for a slow client */
  signal: AbortSignal;
}

export interface MessagesIdentity {
  id: string;
  model: string;
}

/**
 * A `stream: true` Messages client: ONE lifecycle for the whole loop, `message_start` ... `message_stop`. Every
 * turn's blocks (text, thinking with its signature, ...) reach the client as they arrive, their indexes running on
 * across turns; `ping` is the keep-alive while tools run; one `message_delta` ends it with the stop reason and the
 * usage summed over the turns. The response opens with its first byte, so a loop that fails before can fall through.
 */
type Event = Record<string, unknown> & { type: string };

const sse = (data: Event): string => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

export class StreamWriter extends EventStreamWriter {
  private nextIndex = 0;
  /** the client's index of each block of the turn being read, by the model's index */
  private readonly indexes = new Map<number, number>();
  private openBlock?: number;
  protected readonly stream: EventStream;

  constructor(
    res: Response,
    identity: MessagesIdentity,
    private readonly options: MessagesStreamOptions,
  ) {
    super();
    const { id, model } = identity;
    const start = {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    };
    this.stream = new EventStream(res, options.keepAliveSec, sse({ type: 'ping' }), () => this.event(start));
  }

  /** A block event of the turn being read, renumbered; waits when the client's socket is full. */
  forward(event: BlockEvent): Promise<void> | void {
    let index: number | undefined;
    if (event.type === 'content_block_start') {
      this.closeBlock();
      index = this.nextIndex++;
      this.indexes.set(event.index, index);
      this.openBlock = index;
    } else {
      index = this.indexes.get(event.index);
      if (index === undefined) return;
      if (event.type === 'content_block_stop') {
        this.indexes.delete(event.index);
        if (this.openBlock === index) this.openBlock = undefined;
      }
    }
    // a delta, most of a stream's events, serialised as `sse` would without copying the event around its index
    const text =
      event.type === 'content_block_delta'
        ? 'event: content_block_delta\n' +
          `data: {"type":"content_block_delta","index":${index},"delta":${JSON.stringify(event.delta)}}\n\n`
        : sse({ ...event, index });
    return this.keptUp(this.stream.write(text), this.options.signal);
  }

  /** A whole block the loop adds (the budget note, a handed-back tool_use), as a stream of the API writes one. */
  block(block: ContentBlock): void {
    this.closeBlock();
    const index = this.nextIndex++;
    if (block.type === 'text') {
      this.event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      this.event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else if (block.type === 'tool_use') {
      const { input, ...use } = block as ToolUseBlock;
      this.event({ type: 'content_block_start', index, content_block: { ...use, input: {} } });
      this.event({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input ?? {}) },
      });
    } else {
      this.event({ type: 'content_block_start', index, content_block: block });
    }
    this.event({ type: 'content_block_stop', index });
  }

  finish(stopReason: string, usage: MessagesUsage | undefined, stopSequence: string | null = null): void {
    if (this.stream.ended) return;
    this.closeBlock();
    this.event({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: stopSequence },
      usage: usage ?? { input_tokens: 0, output_tokens: 0 },
    });
    this.event({ type: 'message_stop' });
    this.stream.end();
  }

  /** A stream that opened always ends well-formed, even when the loop broke off unexpectedly. */
  dispose(): void {
    this.stream.quiet();
    if (this.stream.opened) this.finish('end_turn', undefined);
  }

  /** A turn that broke off mid-block leaves it open: it is closed before anything else is written. */
  private closeBlock(): void {
    if (this.openBlock === undefined) return;
    const index = this.openBlock;
    this.openBlock = undefined;
    this.event({ type: 'content_block_stop', index });
  }

  /** false when the client's socket is full */
  private event(data: Event): boolean {
    return this.stream.write(sse(data));
  }
}
