import type { JudgeDecision } from '../../lib/judge/runner';
import type { Judge, JudgeInput } from '../../lib/types';
import { judgeContext, toolCall, toolResult } from './inputs';
import { never, returning, runnerFor } from './recording-runner';

afterEach(() => jest.useRealTimers());

describe('createJudgeRunner fails closed', () => {
  it.each<[string, Judge['evaluate'], JudgeInput, string]>([
    [
      'a judge that throws',
      async () => {
        throw new Error('boom');
      },
      toolCall('fs_read', {}),
      'judge failed: boom',
    ],
    [
      'a judge that throws before its promise',
      () => {
        throw new Error('sync boom');
      },
      toolCall('fs_read', {}),
      'judge failed: sync boom',
    ],
    ['a judge that rejects with a string', () => Promise.reject('nope'), toolCall('fs_read', {}), 'judge failed: nope'],
    [
      'a verdict that is not an object',
      returning('yes'),
      toolCall('fs_read', {}),
      'judge failed: invalid verdict: the verdict is not an object',
    ],
    [
      'no verdict at all',
      returning(undefined),
      toolResult('fs_read', 'x'),
      'judge failed: invalid verdict: the verdict is not an object',
    ],
    [
      'an unknown action',
      returning({ action: 'deny' }),
      toolCall('fs_read', {}),
      'judge failed: invalid verdict: action must be allow, block, rewrite or ask, got "deny"',
    ],
    [
      'a block without a reason',
      returning({ action: 'block', reason: ' ' }),
      toolCall('fs_read', {}),
      'judge failed: invalid verdict: a block needs a reason',
    ],
    [
      'a tool_call rewrite with array arguments',
      returning({ action: 'rewrite', arguments: ['a'] }),
      toolCall('fs_read', {}),
      'judge failed: invalid verdict: a tool_call rewrite needs an arguments object',
    ],
    [
      'a context rewrite without a result',
      returning({ action: 'rewrite', arguments: {} }),
      toolResult('fs_read', 'x'),
      'judge failed: invalid verdict: a context rewrite needs a result string',
    ],
  ])('on %s', async (_name, evaluate, input, reason) => {
    const { runner, lines } = runnerFor(evaluate);
    await expect(runner.review(input, judgeContext())).resolves.toStrictEqual({ blocked: true, reason });
    expect(lines).toMatchObject([{ level: 'warn', action: 'block', reason }]);
  });

  it('on a judge that ignores its signal and never answers', async () => {
    jest.useFakeTimers();
    const { runner, lines } = runnerFor(never);
    let decision: JudgeDecision | undefined;
    void runner.review(toolCall('fs_read', {}), judgeContext()).then((value) => (decision = value));
    await jest.advanceTimersByTimeAsync(9_999);
    expect(decision).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(decision).toStrictEqual({ blocked: true, reason: 'judge failed: timed out after 10s' });
    expect(lines[0]).toMatchObject({
      action: 'block',
      reason: 'judge failed: timed out after 10s',
      durationMs: 10_000,
    });
  });

  it('on a judge that gives up when its signal aborts, still naming the timeout', async () => {
    jest.useFakeTimers();
    const signals: AbortSignal[] = [];
    const { runner } = runnerFor(
      (_input, { signal }) => {
        signals.push(signal);
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('request aborted'))),
        );
      },
      { timeoutSec: 2.5 },
    );
    const review = runner.review(toolCall('fs_read', {}), judgeContext());
    await jest.advanceTimersByTimeAsync(2_500);
    await expect(review).resolves.toStrictEqual({ blocked: true, reason: 'judge failed: timed out after 2.5s' });
    expect(signals[0].aborted).toBe(true);
  });

  it('when the loop itself is aborted', async () => {
    const loop = new AbortController();
    const { runner } = runnerFor(never);
    const review = runner.review(toolCall('fs_read', {}), judgeContext({ signal: loop.signal }));
    loop.abort();
    await expect(review).resolves.toStrictEqual({ blocked: true, reason: 'judge failed: aborted' });
  });

  it('without asking the judge when the loop was already aborted', async () => {
    const evaluate = jest.fn(returning({ action: 'allow' }));
    const { runner } = runnerFor(evaluate);
    await expect(
      runner.review(toolCall('fs_read', {}), judgeContext({ signal: AbortSignal.abort() })),
    ).resolves.toStrictEqual({ blocked: true, reason: 'judge failed: aborted' });
    expect(evaluate).not.toHaveBeenCalled();
  });

  it('and leaves no timer behind once the judge answers', async () => {
    jest.useFakeTimers();
    const { runner } = runnerFor(returning({ action: 'allow' }));
    await runner.review(toolCall('fs_read', {}), judgeContext());
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('createJudgeRunner with onError: allow', () => {
  it('lets the call through when the judge throws, and says so at warn', async () => {
    const { runner, lines } = runnerFor(
      async () => {
        throw new Error('boom');
      },
      { onError: 'allow' },
    );
    await expect(runner.review(toolCall('fs_read', {}), judgeContext())).resolves.toStrictEqual({ blocked: false });
    expect(lines).toMatchObject([{ level: 'warn', action: 'allow', reason: 'judge failed: boom' }]);
  });

  it('lets the call through when the judge times out', async () => {
    jest.useFakeTimers();
    const { runner } = runnerFor(never, { onError: 'allow', timeoutSec: 1 });
    const review = runner.review(toolResult('fs_read', 'x'), judgeContext());
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(review).resolves.toStrictEqual({ blocked: false });
  });

  it('still blocks on a valid block verdict', async () => {
    const { runner } = runnerFor(returning({ action: 'block', reason: 'no shell' }), { onError: 'allow' });
    await expect(runner.review(toolCall('shell', {}), judgeContext())).resolves.toStrictEqual({
      blocked: true,
      reason: 'no shell',
    });
  });
});
