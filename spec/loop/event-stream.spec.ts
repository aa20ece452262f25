import { EventEmitter, getEventListeners } from 'node:events';
import type { Response } from 'express';
import { drained } from '../../lib/loop/event-stream';

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
