import type { Answer, Reply } from '../../loop/reply';
import type { ToolTask } from '../../types';
import type { EventStreamWriter } from './event-stream';

/**
 * A `stream: true` client, whatever its wire: the wire's `writer` writes the events, tools running and their
 * progress as every wire's stream says them; the wire says only how the answer's text and its end are written.
 */
export abstract class StreamAnswerReply<Writer extends EventStreamWriter> implements Reply {
  readonly streams = true;

  constructor(readonly writer: Writer) {}

  get committed(): boolean {
    return this.writer.committed;
  }

  abstract text(delta: string): Promise<void> | void;

  abstract send(answer: Answer): void;

  toolsRunning(): void {
    this.writer.toolsRunning();
  }

  toolProgress(): void {
    this.writer.toolProgress();
  }

  toolTask(tool: string, task: ToolTask): void {
    this.writer.toolTask(tool, task);
  }

  dispose(): void {
    this.writer.dispose();
  }
}
