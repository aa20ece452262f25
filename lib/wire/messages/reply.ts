import type { Response } from 'express';
import { JsonAnswerReply } from '../kit/json-reply';
import { noteParagraph, type Answer } from '../../loop/reply';
import { StreamAnswerReply } from '../kit/stream-reply';
import { finalAnswer } from './answer';
import { approvalUse } from './approval';
import { StreamWriter, type MessagesIdentity, type MessagesStreamOptions } from './stream-writer';
import { isToolUse, type AnthropicMessage, type ContentBlock, type MessagesUsage } from './types';

/**
 * What one Messages loop shows its client, turn after turn: every block of the model's but the tool_use blocks the loop
 * ran.
 */
export interface Shown {
  blocks: ContentBlock[];
  usage?: MessagesUsage;
}

/**
 * The client's own calls, handed back as the model wrote them, under the ids that carry the loop's work; then the calls
 * waiting for approval.
 */
function handedBack(answer: Answer): ContentBlock[] {
  const output = answer.last?.output as AnthropicMessage | undefined;
  const calls = (answer.handBack ?? []).flatMap((call) => {
    const block = output?.content[call.index];
    return block && isToolUse(block) ? [{ ...block, id: call.id }] : [];
  });
  return [...calls, ...(answer.approvals ?? []).map(approvalUse)];
}

function stopReason(answer: Answer): string {
  if (answer.handBack?.length || answer.approvals?.length) return 'tool_use';
  if (answer.stop !== 'final' || answer.last?.stop === 'tool_use') return 'end_turn';
  return answer.last?.stop ?? 'end_turn';
}

/** A `stream: false` client: nothing is sent until the loop ends, then ONE Message with the loop's headers. */
export class JsonReply extends JsonAnswerReply {
  constructor(
    res: Response,
    private readonly identity: MessagesIdentity,
    private readonly shown: Shown,
    judged: boolean,
  ) {
    super(res, judged);
  }

  protected answerOf(answer: Answer): unknown {
    const { note } = answer;
    const content = [...this.shown.blocks, ...(note ? [{ type: 'text', text: note }] : []), ...handedBack(answer)];
    return finalAnswer(
      content,
      stopReason(answer),
      this.shown.usage,
      answer.last?.reply as AnthropicMessage | undefined,
      this.identity,
    );
  }
}

/**
 * A `stream: true` client: the turns' blocks go to the writer as the reader reads them; the loop's own text (the
 * budget note) goes as its own text block, the handed-back calls and the summed usage at the end.
 */
export class StreamReply extends StreamAnswerReply<StreamWriter> {
  constructor(
    res: Response,
    identity: MessagesIdentity,
    private readonly shown: Shown,
    options: MessagesStreamOptions,
  ) {
    super(new StreamWriter(res, identity, options));
  }

  text(delta: string): void {
    this.writer.block({ type: 'text', text: delta.replace(/^\n\n/, '') });
  }

  send(answer: Answer): void {
    const note = noteParagraph(answer);
    if (note !== '') this.text(note);
    for (const block of handedBack(answer)) this.writer.block(block);
    this.writer.finish(stopReason(answer), this.shown.usage);
  }
}
