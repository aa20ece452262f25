import { evaluateWithin } from '../../lib/judge/timeout';
import { TimedOut } from '../../lib/shared/signals';
import type { Judge, Verdict } from '../../lib/types';
import { judgeContext, toolCall } from './inputs';

const judgeOf = (evaluate: Judge['evaluate']): Judge => ({ evaluate });

describe('evaluateWithin', () => {
  afterEach(() => jest.useRealTimers());

  it("returns the judge's answer, the judge seeing a signal of its own and the loop's context", async () => {
    const context = judgeContext({ loopId: 'loop-9' });
    let seen: Parameters<Judge['evaluate']>[1] | undefined;
    const judge = judgeOf(async (_input, given) => {
      seen = given;
      return { action: 'block', reason: 'no shell' };
    });
    await expect(evaluateWithin(judge, toolCall('shell', {}), context, 10)).resolves.toEqual({
      action: 'block',
      reason: 'no shell',
    });
    expect(seen).toEqual({ ...context, signal: expect.any(AbortSignal) });
    expect(seen!.signal).not.toBe(context.signal);
  });

  it('times out a judge that ignores its signal, aborting that signal', async () => {
    jest.useFakeTimers();
    let signal: AbortSignal | undefined;
    const judge = judgeOf((_input, context) => {
      signal = context.signal;
      return new Promise<Verdict>(() => undefined);
    });
    const judged = evaluateWithin(judge, toolCall('shell', {}), judgeContext(), 10);
    const outcome = expect(judged).rejects.toEqual(new TimedOut('timed out after 10s'));
    await jest.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(signal!.aborted).toBe(true);
  });

  it("says 'aborted' when the loop's signal aborts first", async () => {
    const loop = new AbortController();
    const judged = evaluateWithin(
      judgeOf(() => new Promise<Verdict>(() => undefined)),
      toolCall('shell', {}),
      judgeContext({ signal: loop.signal }),
      10,
    );
    loop.abort(new Error('client went away'));
    await expect(judged).rejects.toEqual(new Error('aborted'));
  });

  it("passes the judge's own failure on", async () => {
    const judged = evaluateWithin(
      judgeOf(async () => Promise.reject(new Error('judge model down'))),
      toolCall('shell', {}),
      judgeContext(),
      10,
    );
    await expect(judged).rejects.toEqual(new Error('judge model down'));
  });
});
