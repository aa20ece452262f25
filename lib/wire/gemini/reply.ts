import type { Response } from 'express';
import { JsonAnswerReply } from '../kit/json-reply';
import { noteParagraph, type Answer } from '../../loop/reply';
import { StreamAnswerReply } from '../kit/stream-reply';
import { answerParts, finalAnswer, type GeminiIdentity } from './answer';
import { StreamWriter, type GeminiStreamOptions } from './stream-writer';
import type { UsageMetadata } from './types';

/** What one Gemini loop has counted, turn after turn: each turn's usageMetadata, summed. */
export interface Counted {
  usage?: UsageMetadata;
}

/**
 * A `:generateContent` client: nothing is sent until the loop ends, then ONE GenerateContentResponse with the loop's
 * headers.
 */
export class JsonReply extends JsonAnswerReply {
  constructor(
    res: Response,
    private readonly identity: GeminiIdentity,
    private readonly counted: Counted,
    judged: boolean,
  ) {
    super(res, judged);
  }

  protected answerOf(answer: Answer): unknown {
    return finalAnswer(answer, this.counted.usage, this.identity);
  }
}

/**
 * A `:streamGenerateContent?alt=sse` client: the turns' text goes out as it arrives; the loop's note, the handed-back
 * calls, the finishReason and the summed usage in the last chunk.
 */
export class StreamReply extends StreamAnswerReply<StreamWriter> {
  constructor(
    res: Response,
    identity: GeminiIdentity,
    private readonly counted: Counted,
    options: GeminiStreamOptions,
  ) {
    super(new StreamWriter(res, identity, options));
  }

  text(delta: string): Promise<void> | void {
    return this.writer.text(delta);
  }

  send(answer: Answer): void {
    const note = noteParagraph(answer);
    const { parts, finishReason } = answerParts({ ...answer, text: '', note: undefined });
    this.writer.finish([...(note === '' ? [] : [{ text: note }]), ...parts], finishReason, this.counted.usage);
  }
}
