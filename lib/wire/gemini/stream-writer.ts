import type { Response } from 'express';
import { EventStream, EventStreamWriter } from '../kit/event-stream';
import type { GeminiIdentity } from './answer';
import type { Part, UsageMetadata } from './types';

export interface GeminiStreamOptions {
  keepAliveSec: number;
  /** the loop's signal: a loop that ends stops waiting for a slow client */
  signal: AbortSignal;
}

/**
 * A `:streamGenerateContent?alt=sse` client: ONE stream of GenerateContentResponse chunks for the whole loop, the
 * text of every turn as it arrives, then one chunk with the calls handed back (if any), the finishReason and the
 * usageMetadata summed over the turns. The response opens with its first byte, so a loop that fails before can fall
 * through; a comment is the keep-alive while tools run (the SDK reads only `data:` events).
 */
export class StreamWriter extends EventStreamWriter {
  protected readonly stream: EventStream;
  /** a text chunk is this envelope around the text: serialised once, not for every delta */
  private readonly textHead = '{"candidates":[{"content":{"role":"model","parts":[{"text":';
  private readonly textTail: string;

  constructor(
    res: Response,
    private readonly identity: GeminiIdentity,
    private readonly options: GeminiStreamOptions,
  ) {
    super();
    this.stream = new EventStream(res, options.keepAliveSec, ': keep-alive\r\n\r\n');
    this.textTail =
      `}]},"index":0}],"modelVersion":${JSON.stringify(identity.model)},` +
      `"responseId":${JSON.stringify(identity.responseId)}}`;
  }

  /** Waits, when the client's socket is full, until it drained: the loop then reads no further ahead of the client. */
  text(delta: string): Promise<void> | void {
    const room = this.stream.write(`data: ${this.textHead}${JSON.stringify(delta)}${this.textTail}\r\n\r\n`);
    return this.keptUp(room, this.options.signal);
  }

  finish(parts: Part[], finishReason: string, usage: UsageMetadata | undefined): void {
    if (this.stream.ended) return;
    const chunk = {
      candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: this.identity.model,
      responseId: this.identity.responseId,
    };
    this.stream.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    this.stream.end();
  }

  /** A stream that opened always ends well-formed, even when the loop broke off unexpectedly. */
  dispose(): void {
    this.stream.quiet();
    if (this.stream.opened) this.finish([], 'STOP', undefined);
  }
}
