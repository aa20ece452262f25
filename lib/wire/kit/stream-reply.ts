import type { Answer, Reply, ToolNote } from '../../loop/reply';
import type { EventStreamWriter } from './event-stream';

/**
 * A `stream: true` client, whatever its wire: the wire's `writer` writes the events, tools running and their
 * progress as every wire's stream says them; the wire says only how the answer's text and its end are written.
 */
/** A wire's stream writer as a reply drives it: it ends its stream well-formed when the loop broke off (`dispose`). */
type StreamWriter = EventStreamWriter & { dispose(): void };

export abstract class StreamAnswerReply<Writer extends StreamWriter> implements Reply {
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

  toolNote(tool: string, note: ToolNote): void {
    this.writer.toolNote(tool, note);
  }

  dispose(): void {
    this.writer.dispose();
  }
}
