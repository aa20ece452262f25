import { EventEmitter, getEventListeners } from 'node:events';
import http from 'node:http';
import express, { type Response } from 'express';
import { drained, openEventStream } from '../../lib/loop/event-stream';
import { listen, type Listening } from '../helpers/listen';

/** A response whose socket is full: it emits `drain` or `close` when the test says so. */
const fullResponse = () => new EventEmitter() as unknown as Response & EventEmitter;

describe('drained', () => {
  it.each(['drain', 'close'])("resolves on the response's %s, and stops listening to all three", async (event) => {
    const res = fullResponse();
    const loop = new AbortController();
    const waiting = drained(res, loop.signal);
    res.emit(event);
    await waiting;
    expect([res.listenerCount('drain'), res.listenerCount('close'), getEventListeners(loop.signal, 'abort').length]).toEqual([0, 0, 0]);
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
    expect([res.statusCode, res.headers['content-type'], res.headers['cache-control'], res.headers['x-accel-buffering']]).toEqual([200, 'text/event-stream; charset=utf-8', 'no-cache', 'no']);
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
