import type { Response } from 'express';
import { finalCompletion, type AnswerIdentity } from './answer';
import type { LoopStats } from '../../loop/context';
import { setLoopHeaders, type Answer, type Reply } from '../../loop/reply';

/** A `stream: false` client: nothing is sent until the loop ends, then one chat completion with the loop's headers. */
export class JsonReply implements Reply {
  readonly streams = false;
  readonly committed = false;

  constructor(
    private readonly res: Response,
    private readonly identity: AnswerIdentity,
    private readonly judged: boolean,
  ) {}

  text(): void {}

  toolsRunning(): void {}

  send(answer: Answer, stats: LoopStats): void {
    setLoopHeaders(this.res, answer.stop, stats, this.judged);
    this.res.status(200).json(finalCompletion(answer, this.identity));
  }

  dispose(): void {}
}
