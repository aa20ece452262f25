import type { Response } from 'express';
import { EventStream, EventStreamWriter } from '../kit/event-stream';
import { noteParagraph, type Answer, type Reply } from '../../loop/reply';
import { answerOutput, finalAnswer, messageItem, type ResponseIdentity } from './answer';
import type { Answered } from './reply';
import type { ResponseItem } from './types';
import type { ReplyOptions } from '../../loop/wire';

/**
 * A `stream: true` client: ONE Responses event stream for the whole loop, `response.created` to `response.completed`,
 * its `sequence_number` and output indexes running on across the turns. Every turn's text goes into one message
 * item as it arrives; at the end come the last turn's other items (on a hand-back, its reasoning and the client's
 * calls) and the Response whole. It opens with its first byte, so a loop that fails before producing anything can
 * still fall through.
 */
export class StreamReply extends EventStreamWriter implements Reply {
  readonly streams = true;
  private sequence = 0;
  private text_ = '';
  private messageOpen = false;
  protected readonly stream: EventStream;
  private readonly messageId: string;
  /** a text delta's event but its delta and number: serialised once, not for every delta */
  private readonly textHead: string;

  constructor(
    res: Response,
    private readonly identity: ResponseIdentity,
    private readonly options: Pick<ReplyOptions, 'keepAliveSec' | 'signal'>,
    private readonly answered: Answered,
  ) {
    super();
    this.messageId = `msg_${identity.id}`;
    this.textHead =
      'event: response.output_text.delta\n' +
      `data: {"type":"response.output_text.delta","item_id":${JSON.stringify(this.messageId)},` +
      '"output_index":0,"content_index":0,"delta":';
    this.stream = new EventStream(res, options.keepAliveSec, ': keep-alive\n\n', () => {
      const response = this.skeleton();
      this.event('response.created', { response });
      this.event('response.in_progress', { response });
    });
  }

  /** Waits, when the client's socket is full, until it drained: the loop then reads no further ahead of the client. */
  text(delta: string): Promise<void> | void {
    this.openMessage();
    this.text_ += delta;
    this.stream.open();
    const room = this.stream.write(
      `${this.textHead}${JSON.stringify(delta)},"logprobs":[],"sequence_number":${this.sequence++}}\n\n`,
    );
    return this.keptUp(room, this.options.signal);
  }

  send(answer: Answer): void {
    if (this.stream.ended) return;
    const note = noteParagraph(answer);
    if (note !== '') this.text(note);
    const output = answerOutput(answer, this.identity, true);
    if (!this.messageOpen && output[0]?.type === 'message') this.text(answer.text);
    this.closeMessage();
    output.slice(this.messageOpen ? 1 : 0).forEach((item, i) => this.item(item, i + (this.messageOpen ? 1 : 0)));
    this.finish(finalAnswer(answer, this.identity, output));
  }

  beforeSend(answer: Answer): Promise<void> | undefined {
    return this.answered(answer.last?.id ?? '');
  }

  /** A stream that opened always ends well-formed, even when the loop broke off unexpectedly. */
  dispose(): void {
    this.stream.quiet();
    if (!this.stream.opened || this.stream.ended) return;
    this.closeMessage();
    this.finish(
      finalAnswer(undefined, this.identity, this.messageOpen ? [messageItem(this.messageId, this.text_)] : []),
    );
  }

  private item(item: ResponseItem, index: number): void {
    if (item.type !== 'function_call') {
      this.event('response.output_item.added', { output_index: index, item });
      this.event('response.output_item.done', { output_index: index, item });
      return;
    }
    this.event('response.output_item.added', {
      output_index: index,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    this.event('response.function_call_arguments.delta', {
      item_id: item.id,
      output_index: index,
      delta: item.arguments,
    });
    this.event('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      arguments: item.arguments,
    });
    this.event('response.output_item.done', { output_index: index, item });
  }

  private openMessage(): void {
    if (this.messageOpen) return;
    this.messageOpen = true;
    const item = { ...messageItem(this.messageId, '', 'in_progress'), content: [] };
    this.event('response.output_item.added', { output_index: 0, item });
    this.event('response.content_part.added', {
      item_id: this.messageId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
  }

  private closeMessage(): void {
    if (!this.messageOpen) return;
    const part = { type: 'output_text', text: this.text_, annotations: [] };
    this.event('response.output_text.done', {
      item_id: this.messageId,
      output_index: 0,
      content_index: 0,
      text: this.text_,
      logprobs: [],
    });
    this.event('response.content_part.done', { item_id: this.messageId, output_index: 0, content_index: 0, part });
    this.event('response.output_item.done', { output_index: 0, item: messageItem(this.messageId, this.text_) });
  }

  private finish(response: ResponseItem): void {
    this.event('response.completed', { response });
    this.stream.end();
  }

  private skeleton(): ResponseItem {
    const { id, createdAt, model, previousResponseId } = this.identity;
    return {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'in_progress',
      model,
      previous_response_id: previousResponseId,
      output: [],
      usage: null,
      error: null,
    };
  }

  /** false when the client's socket is full; opened first, so that its own first events number from 0 */
  private event(type: string, fields: Record<string, unknown>): boolean {
    this.stream.open();
    return this.stream.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: this.sequence++ })}\n\n`,
    );
  }
}
