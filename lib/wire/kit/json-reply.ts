import type { Response } from 'express';
import type { LoopStats } from '../../loop/context';
import { setLoopHeaders, type Answer, type Reply } from '../../loop/reply';

/**
 * A `stream: false` client, whatever its wire: nothing is sent until the loop ends, then the wire's one JSON
 * answer (`answerOf`) with the loop's headers.
 */
export abstract class JsonAnswerReply implements Reply {
  readonly streams = false;
  readonly committed = false;

  constructor(
    private readonly res: Response,
    private readonly judged: boolean,
  ) {}

  protected abstract answerOf(answer: Answer): unknown;

  text(): void {}

  toolsRunning(): void {}

  send(answer: Answer, stats: LoopStats): void {
    setLoopHeaders(this.res, answer.stop, stats, this.judged);
    this.res.status(200).json(this.answerOf(answer));
  }

  dispose(): void {}
}
