import { getEventListeners } from 'node:events';
import { abortable, linkedController, onAbort, settledWithin, TimedOut, withinTimeout } from '../../lib/shared/signals';

const never = () => new Promise<never>(() => undefined);

describe('withinTimeout', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('rejects work that ignores its signal with TimedOut once the seconds pass', async () => {
    const parent = new AbortController();
    const run = withinTimeout(parent.signal, 2, never);
    const settled = jest.fn();
    run.catch(settled);
    await jest.advanceTimersByTimeAsync(1_999);
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(run).rejects.toEqual(new TimedOut('timed out after 2s'));
    expect(jest.getTimerCount()).toBe(0);
  });

  it("rejects with the parent's reason when the parent aborts, and aborts the work's signal", async () => {
    const parent = new AbortController();
    let seen: AbortSignal | undefined;
    const run = withinTimeout(parent.signal, 30, (signal) => ((seen = signal), never()));
    parent.abort(new Error('client disconnected'));
    await expect(run).rejects.toThrow('client disconnected');
    expect(seen?.aborted).toBe(true);
  });

  it("listens on the parent alone: the work's signal carries only the work's own listeners", async () => {
    const parent = new AbortController();
    let seen: AbortSignal | undefined;
    const run = withinTimeout(parent.signal, 30, async (signal) => ((seen = signal), never()));
    await Promise.resolve();
    expect([getEventListeners(seen as AbortSignal, 'abort'), getEventListeners(parent.signal, 'abort')]).toEqual([
      [],
      [expect.any(Function)],
    ]);
    parent.abort(new Error('gone'));
    await expect(run).rejects.toThrow('gone');
    expect(getEventListeners(parent.signal, 'abort')).toEqual([]);
  });

  it('never starts work under a parent that already aborted', async () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const work = jest.fn(never);
    await expect(withinTimeout(parent.signal, 30, work)).rejects.toThrow('gone');
    expect(work).not.toHaveBeenCalled();
  });

  it('starts the timeout afresh on extend(), bounded only by the parent', async () => {
    const parent = new AbortController();
    let extend = () => undefined as void;
    const run = withinTimeout(parent.signal, 2, (_signal, more) => ((extend = more), never()));
    const settled = jest.fn();
    run.catch(settled);
    for (let i = 0; i < 5; i++) {
      await jest.advanceTimersByTimeAsync(1_500);
      extend();
    }
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(2_000);
    await expect(run).rejects.toEqual(new TimedOut('timed out after 2s'));
  });

  it('gives an extend() after the end nothing to do', async () => {
    let extend = () => undefined as void;
    await expect(
      withinTimeout(new AbortController().signal, 2, async (_signal, more) => ((extend = more), 'done')),
    ).resolves.toBe('done');
    extend();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('resolves with the work and leaves no timer behind', async () => {
    await expect(withinTimeout(new AbortController().signal, 30, async () => 'done')).resolves.toBe('done');
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('linkedController', () => {
  it('follows its parent until unlinked', () => {
    const parent = new AbortController();
    const first = linkedController(parent.signal);
    const second = linkedController(parent.signal);
    second.unlink();
    parent.abort(new Error('stop'));
    expect(first.controller.signal.reason).toEqual(new Error('stop'));
    expect(second.controller.signal.aborted).toBe(false);
  });
});

describe('onAbort', () => {
  it('runs the action once when the signal aborts, and not after it stopped watching', () => {
    const watched = new AbortController();
    const stopped = new AbortController();
    const action = jest.fn();
    const never = jest.fn();
    onAbort(watched.signal, action);
    onAbort(stopped.signal, never)();
    expect(getEventListeners(stopped.signal, 'abort')).toHaveLength(0);
    watched.abort();
    watched.abort();
    stopped.abort();
    expect(action).toHaveBeenCalledTimes(1);
    expect(never).not.toHaveBeenCalled();
  });

  it('runs the action at once for a signal that already aborted, and watches nothing for no signal', () => {
    const action = jest.fn();
    const aborted = AbortSignal.abort();
    onAbort(aborted, action)();
    expect(action).toHaveBeenCalledTimes(1);
    expect(getEventListeners(aborted, 'abort')).toHaveLength(0);
    onAbort(undefined, action)();
    expect(action).toHaveBeenCalledTimes(1);
  });
});

describe('abortable', () => {
  it("rejects with the signal's reason as soon as it aborts, whatever the work does", async () => {
    const controller = new AbortController();
    const run = abortable(never(), controller.signal);
    controller.abort(new Error('client disconnected'));
    await expect(run).rejects.toThrow('client disconnected');
    await expect(abortable(never(), AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('settles like the work otherwise, and stops watching the signal once it did', async () => {
    const controller = new AbortController();
    await expect(abortable(Promise.resolve('done'), controller.signal)).resolves.toBe('done');
    await expect(abortable(Promise.reject(new Error('tool failed')), controller.signal)).rejects.toThrow('tool failed');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await expect(abortable(Promise.resolve('no signal'), undefined)).resolves.toBe('no signal');
  });
});

describe('settledWithin', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('says false once the time ran out, leaving the work be', async () => {
    const settled = jest.fn();
    void settledWithin(never(), 1_000).then(settled);
    await jest.advanceTimersByTimeAsync(999);
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(settled).toHaveBeenCalledWith(false);
  });

  it('says true for work that settled in time, fulfilled or rejected, and leaves no timer behind', async () => {
    const late = new Promise((resolve) => setTimeout(resolve, 500));
    const failing = new Promise((_resolve, reject) => setTimeout(reject, 500, new Error('terminate failed')));
    const both = Promise.all([settledWithin(late, 1_000), settledWithin(failing, 1_000)]);
    await jest.advanceTimersByTimeAsync(500);
    await expect(both).resolves.toEqual([true, true]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
