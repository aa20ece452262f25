import http from 'node:http';
import express, { type Response } from 'express';
import { EventStream, EventStreamWriter } from '../../../lib/wire/kit/event-stream';
import { StreamAnswerReply } from '../../../lib/wire/kit/stream-reply';
import type { Answer } from '../../../lib/loop/reply';
import { listen, type Listening } from '../../helpers/listen';

/** A wire's writer of the least shape: its text as `data:` events, its end as one `data: end`. */
class LineWriter extends EventStreamWriter {
  protected readonly stream: EventStream;

  constructor(res: Response) {
    super();
    this.stream = new EventStream(res, 15, ': beat\n\n');
  }

  line(text: string): void {
    this.stream.write(`data: ${text}\n\n`);
  }

  dispose(): void {
    this.stream.quiet();
    if (this.stream.opened && !this.stream.ended) this.end();
  }

  end(): void {
    this.line('end');
    this.stream.end();
  }
}

class LineReply extends StreamAnswerReply<LineWriter> {
  text(delta: string): void {
    this.writer.line(delta);
  }

  send(answer: Answer): void {
    this.text(`[${answer.stop}]`);
    this.writer.end();
  }
}

describe("StreamAnswerReply: a stream: true client of any wire, the wire's writer doing the writing", () => {
  let server: Listening | undefined;
  afterEach(() => server?.close());

  /** What the client read of one reply the test drives in `drive`. */
  async function received(drive: (reply: LineReply) => void): Promise<string> {
    const app = express();
    app.get('/', (_req, res) => drive(new LineReply(new LineWriter(res))));
    server = await listen(app);
    return new Promise((resolve) =>
      http.get(server!.url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
      }),
    );
  }

  it("is committed once its writer's stream opened; progress is a beat, a task a comment, then the wire's answer", async () => {
    const text = await received((reply) => {
      expect([reply.streams, reply.committed]).toEqual([true, false]);
      reply.toolsRunning();
      expect(reply.committed).toBe(true);
      reply.toolProgress();
      reply.toolNote('search', { task: { id: 't1', status: 'working', statusMessage: 'half way' } });
      reply.text('Found.');
      reply.send({ stop: 'final', text: 'Found.' });
      reply.dispose();
    });
    expect(text).toBe(': beat\n\n: task search t1 working: half way\n\ndata: Found.\n\ndata: [final]\n\ndata: end\n\n');
  });

  it('ends a stream that opened well-formed when the loop broke off (dispose is the writer’s)', async () => {
    const text = await received((reply) => {
      reply.text('Half');
      reply.dispose();
    });
    expect(text).toBe('data: Half\n\ndata: end\n\n');
  });
});
