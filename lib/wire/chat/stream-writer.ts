import type { Response } from 'express';
import { EventStream, EventStreamWriter } from '../kit/event-stream';
import type { ChatUsage } from './types';
import { chatAnswer, type AnswerIdentity } from './answer';
import { chatUsage } from '../../loop/turn-result';
import { noteParagraph, type Answer, type Reply } from '../../loop/reply';

export interface StreamOptions {
  keepAliveSec: number;
  /** the client asked for `stream_options.include_usage` */
  includeUsage: boolean;
  /** the loop's signal: a loop that ends stops waiting for a slow client */
  signal: AbortSignal;
}

/**
 * A `stream: true` client: ONE OpenAI SSE stream for the whole loop (one id, one created, the requested model),
 * text chunks as the turns produce them, then one finishing chunk, the usage chunk if asked for, and `[DONE]`.
 * The response opens with its first byte, so a loop that fails before producing anything can still fall through.
 */
export class StreamReply extends EventStreamWriter implements Reply {
  readonly streams = true;
  private roleSent = false;
  protected readonly stream: EventStream;
  /** a text chunk but the first is this envelope around the text: serialised once, not for every delta */
  private readonly textHead: string;
  private readonly textTail: string;

  constructor(
    res: Response,
    private readonly identity: AnswerIdentity,
    private readonly options: StreamOptions,
  ) {
    super();
    this.stream = new EventStream(res, options.keepAliveSec, ': keep-alive\n\n');
    this.textHead = `data: ${JSON.stringify(this.envelope()).slice(0, -1)},"choices":[{"index":0,"delta":{"content":`;
    this.textTail = `},"finish_reason":null}]${options.includeUsage ? ',"usage":null' : ''}}\n\n`;
  }

  /** Waits, when the client's socket is full, until it drained: the loop then reads no further ahead of the client. */
  text(delta: string): Promise<void> | void {
    const room = this.roleSent
      ? this.stream.write(`${this.textHead}${JSON.stringify(delta)}${this.textTail}`)
      : this.chunk({ content: delta });
    return this.keptUp(room, this.options.signal);
  }

  send(answer: Answer): void {
    const note = noteParagraph(answer);
    if (note !== '') this.text(note);
    const { message, finishReason } = chatAnswer(answer);
    (message.tool_calls ?? []).forEach(({ id, type, function: fn }, index) =>
      this.chunk({ tool_calls: [{ index, id, type, function: fn }] }),
    );
    this.finish(finishReason, answer.usage && chatUsage(answer.usage));
  }

  /** A stream that opened always ends well-formed, even when the loop broke off unexpectedly. */
  dispose(): void {
    this.stream.quiet();
    if (this.stream.opened) this.finish('stop');
  }

  private finish(finishReason: string, usage?: ChatUsage): void {
    if (this.stream.ended) return;
    this.chunk({}, finishReason);
    if (this.options.includeUsage) this.event({ ...this.envelope(), choices: [], usage: usage ?? null });
    this.stream.write('data: [DONE]\n\n');
    this.stream.end();
  }

  private envelope() {
    return {
      id: this.identity.id,
      object: 'chat.completion.chunk',
      created: this.identity.created,
      model: this.identity.model,
    };
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null): boolean {
    const first = !this.roleSent;
    this.roleSent = true;
    return this.event({
      ...this.envelope(),
      choices: [{ index: 0, delta: first ? { role: 'assistant', ...delta } : delta, finish_reason: finishReason }],
      ...(this.options.includeUsage ? { usage: null } : {}),
    });
  }

  private event(data: Record<string, unknown>): boolean {
    return this.stream.write(`data: ${JSON.stringify(data)}\n\n`);
  }
}
