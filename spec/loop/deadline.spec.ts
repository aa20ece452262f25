import { Deadline } from '../../lib/loop/deadline';

describe('Deadline: one wall-clock budget over every turn', () => {
  afterEach(() => jest.useRealTimers());

  it('aborts its signal when the seconds run out, naming the budget', () => {
    jest.useFakeTimers();
    const deadline = new Deadline(3);
    expect(deadline.expiresAt).toBe(Date.now() + 3000);
    jest.advanceTimersByTime(2999);
    expect(deadline.expired).toBe(false);
    jest.advanceTimersByTime(1);
    expect(deadline.expired).toBe(true);
    expect(deadline.stop).toBe('deadline');
    expect((deadline.signal.reason as Error).message).toBe('total budget of 3s ran out');
  });

  it('is brought forward by a shutdown, before or during the loop, saying why', () => {
    const shutdown = new AbortController();
    const during = new Deadline(60, shutdown.signal);
    expect(during.expired).toBe(false);
    shutdown.abort();
    expect(during.expired).toBe(true);
    expect(during.stop).toBe('shutdown');
    expect((during.signal.reason as Error).message).toBe('the gateway is shutting down');
    const after = new Deadline(60, shutdown.signal);
    expect([after.expired, after.stop]).toEqual([true, 'shutdown']);
    during.clear();
    after.clear();
  });

  it('stops its timer and its shutdown listener once cleared', () => {
    jest.useFakeTimers();
    const shutdown = new AbortController();
    const deadline = new Deadline(1, shutdown.signal);
    deadline.clear();
    jest.advanceTimersByTime(5000);
    shutdown.abort();
    expect(deadline.expired).toBe(false);
  });
});
