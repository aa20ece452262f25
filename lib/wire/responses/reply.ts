import type { Response } from 'express';
import { JsonAnswerReply } from '../kit/json-reply';
import type { Answer } from '../../loop/reply';
import { answerOutput, finalAnswer, type ResponseIdentity } from './answer';

/** The answer is going out: a follow-up chaining on its id chains on the upstream's reply `upstreamId`. */
export type Answered = (upstreamId: string) => Promise<void> | undefined;

/** A `stream: false` client: nothing is sent until the loop ends, then one Response with the loop's headers. */
export class JsonReply extends JsonAnswerReply {
  constructor(
    res: Response,
    private readonly identity: ResponseIdentity,
    judged: boolean,
    private readonly answered: Answered,
  ) {
    super(res, judged);
  }

  protected answerOf(answer: Answer): unknown {
    return finalAnswer(answer, this.identity, answerOutput(answer, this.identity, false));
  }

  beforeSend(answer: Answer): Promise<void> | undefined {
    return this.answered(answer.last?.id ?? '');
  }
}
