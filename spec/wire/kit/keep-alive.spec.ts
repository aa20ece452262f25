import { KeepAlive } from '../../../lib/wire/kit/keep-alive';

describe('KeepAlive: what keeps a quiet stream open while tools run', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('beats every interval once started, and a write starts the wait afresh', () => {
    const beat = jest.fn();
    const keepAlive = new KeepAlive(15, beat);
    jest.advanceTimersByTime(60_000);
    expect(beat).not.toHaveBeenCalled();

    keepAlive.start();
    keepAlive.start();
    jest.advanceTimersByTime(15_000);
    expect(beat).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(10_000);
    keepAlive.wrote();
    jest.advanceTimersByTime(10_000);
    expect(beat).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(5_000);
    expect(beat).toHaveBeenCalledTimes(2);

    keepAlive.stop();
    jest.advanceTimersByTime(60_000);
    expect(beat).toHaveBeenCalledTimes(2);
  });

  it("passes a tool's progress on at most once a second", () => {
    jest.setSystemTime(10_000);
    const beat = jest.fn();
    const keepAlive = new KeepAlive(15, beat);
    keepAlive.progress();
    keepAlive.progress();
    jest.setSystemTime(10_999);
    keepAlive.progress();
    expect(beat).toHaveBeenCalledTimes(1);
    jest.setSystemTime(11_000);
    keepAlive.progress();
    expect(beat).toHaveBeenCalledTimes(2);
  });
});
