import type { Response } from 'express';
import { finalAnswer, type AnswerIdentity } from './answer';
import { JsonAnswerReply } from '../kit/json-reply';
import type { Answer } from '../../loop/reply';

/** A `stream: false` client: nothing is sent until the loop ends, then one chat completion with the loop's headers. */
export class JsonReply extends JsonAnswerReply {
  constructor(
    res: Response,
    private readonly identity: AnswerIdentity,
    judged: boolean,
  ) {
    super(res, judged);
  }

  protected answerOf(answer: Answer): unknown {
    return finalAnswer(answer, this.identity);
  }
}
