import type { Response } from 'express';
import type { LoopStats } from './context';
import { finalCompletion, type Answer, type AnswerIdentity, type Reply } from './reply';

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
    this.res.setHeader('x-agent-loop-turns', String(stats.turns));
    this.res.setHeader('x-agent-loop-tool-calls', String(stats.toolCalls));
    this.res.setHeader('x-agent-loop-stop', answer.stop);
    this.res.setHeader('x-agent-loop-repeated', String(stats.repeated));
    this.res.setHeader('x-agent-loop-elided', String(stats.elided));
    if (this.judged) this.res.setHeader('x-agent-loop-blocked', String(stats.blocked));
    this.res.status(200).json(finalCompletion(answer, this.identity));
  }

  dispose(): void {}
}
