import { linkedController, TimedOut, withinTimeout } from '../lib/signals';

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
    await expect(withinTimeout(new AbortController().signal, 2, async (_signal, more) => ((extend = more), 'done'))).resolves.toBe('done');
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
