import { EventEmitter, getEventListeners } from 'node:events';
import http from 'node:http';
import express, { type Response } from 'express';
import { EventStream, EventStreamWriter, drained, openEventStream } from '../../../lib/wire/kit/event-stream';
import { listen, type Listening } from '../../helpers/listen';

/** A response whose socket is full: it emits `drain` or `close` when the test says so. */
const fullResponse = () => new EventEmitter() as unknown as Response & EventEmitter;

describe('drained', () => {
  it.each(['drain', 'close'])("resolves on the response's %s, and stops listening to all three", async (event) => {
    const res = fullResponse();
    const loop = new AbortController();
    const waiting = drained(res, loop.signal);
    res.emit(event);
    await waiting;
    expect([
      res.listenerCount('drain'),
      res.listenerCount('close'),
      getEventListeners(loop.signal, 'abort').length,
    ]).toEqual([0, 0, 0]);
  });

  it('resolves when the loop ends, and at once when it already has: a loop that ended waits for no slow client', async () => {
    const res = fullResponse();
    const loop = new AbortController();
    const waiting = drained(res, loop.signal);
    loop.abort();
    await waiting;
    const ended = jest.fn();
    await drained(res, loop.signal).then(ended);
    expect(ended).toHaveBeenCalled();
    expect([res.listenerCount('drain'), res.listenerCount('close')]).toEqual([0, 0]);
  });
});

describe('a server-sent event stream to the client', () => {
  let server: Listening;
  afterEach(() => server.close());

  it('sends its headers at once, before any event, so that proxies pass each event on', async () => {
    const app = express();
    app.get('/', (_req, res) => openEventStream(res));
    server = await listen(app);
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(server.url, resolve));
    expect([
      res.statusCode,
      res.headers['content-type'],
      res.headers['cache-control'],
      res.headers['x-accel-buffering'],
    ]).toEqual([200, 'text/event-stream; charset=utf-8', 'no-cache', 'no']);
    res.destroy();
  });

  it('stops waiting for a slow client once the loop ends, or once the client went away', async () => {
    const waits: Promise<string>[] = [];
    const loopEnded = new AbortController();
    const app = express();
    app.get('/', (_req, res) => {
      openEventStream(res);
      waits.push(drained(res, loopEnded.signal).then(() => 'loop ended'));
      waits.push(drained(res, new AbortController().signal).then(() => 'client gone'));
    });
    server = await listen(app);
    let req: http.ClientRequest | undefined;
    await new Promise<void>((resolve) => (req = http.get(server.url, () => resolve())));
    req?.on('error', () => undefined);
    loopEnded.abort();
    await expect(waits[0]).resolves.toBe('loop ended');
    req?.destroy();
    await expect(waits[1]).resolves.toBe('client gone');
  });
});

/** A response that records what is written to it, with no socket. */
function recordingResponse(written: string[]): Response {
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    status: () => res,
    setHeader: () => res,
    flushHeaders: () => undefined,
    write: (text: string) => written.push(text) > 0,
    end: () => undefined,
  }) as unknown as Response;
  return res;
}

describe('EventStream: one event stream to the client, whatever its wire', () => {
  let server: Listening | undefined;
  afterEach(async () => {
    jest.useRealTimers();
    await server?.close();
    server = undefined;
  });

  /** What the client read of one stream the test writes in `write`, once it ended. */
  async function received(
    write: (stream: EventStream) => void,
    onOpen?: (stream: EventStream) => void,
  ): Promise<string> {
    const app = express();
    app.get('/', (_req, res) => {
      const stream: EventStream = new EventStream(res, 15, ': beat\n\n', onOpen && (() => onOpen(stream)));
      write(stream);
    });
    server = await listen(app);
    return new Promise((resolve) =>
      http.get(server!.url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
      }),
    );
  }

  it("opens with its first write, the wire's start written once before it, and takes no write once ended", async () => {
    const text = await received(
      (stream) => {
        expect(stream.opened).toBe(false);
        stream.write('data: 1\n\n');
        stream.write('data: 2\n\n');
        stream.end();
        expect(stream.ended).toBe(true);
        expect(stream.write('data: late\n\n')).toBe(true);
      },
      (stream) => stream.write('event: start\n\n'),
    );
    expect(text).toBe('event: start\n\ndata: 1\n\ndata: 2\n\n');
  });

  it('sends its beat when quiet while tools run, and none once quiet() was called', () => {
    jest.useFakeTimers();
    const written: string[] = [];
    const res = recordingResponse(written);
    const stream = new EventStream(res, 2, ': beat\n\n');
    stream.toolsRunning();
    jest.advanceTimersByTime(2_000);
    stream.write('data: x\n\n');
    jest.advanceTimersByTime(1_999);
    expect(written).toEqual([': beat\n\n', 'data: x\n\n']);
    jest.advanceTimersByTime(1);
    stream.quiet();
    jest.advanceTimersByTime(10_000);
    expect(written).toEqual([': beat\n\n', 'data: x\n\n', ': beat\n\n']);
  });
});

describe('EventStreamWriter: what every wire writes of a running tool', () => {
  it("writes a task's status and a program's log line as one-line SSE comments", () => {
    const written: string[] = [];
    const res = recordingResponse(written);
    const writer = new (class extends EventStreamWriter {
      protected readonly stream = new EventStream(res, 15, ': beat\n\n');
    })();
    writer.toolNote('build', { task: { id: 't-1', status: 'working', statusMessage: 'linking' } });
    writer.toolNote('build', { task: { id: 't-1', status: 'completed' } });
    writer.toolNote('run_code', { log: 'read 3 notes\nnext: data: {"x":1}' });
    expect(written).toEqual([
      ': task build t-1 working: linking\n\n',
      ': task build t-1 completed\n\n',
      ': log run_code read 3 notes next: data: {"x":1}\n\n',
    ]);
  });
});
