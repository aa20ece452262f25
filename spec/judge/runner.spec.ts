import type { Request } from 'express';
import { createJudgeRunner } from '../../lib/judge/runner';
import type { JudgeDecision } from '../../lib/judge/runner';
import type { JudgeContext, JudgeInput, Verdict } from '../../lib/types';
import { judgeContext, toolCall, toolResult } from './inputs';
import { memoryLogger } from '../helpers/memory-logger';
import { returning, runnerFor, settings } from './recording-runner';

afterEach(() => jest.useRealTimers());

describe('createJudgeRunner, enforcing', () => {
  it.each<[string, JudgeInput, Verdict, JudgeDecision]>([
    ['allow on tool_call', toolCall('fs_read', {}), { action: 'allow' }, { blocked: false }],
    [
      'block on tool_call',
      toolCall('shell', {}),
      { action: 'block', reason: 'no shell' },
      { blocked: true, reason: 'no shell' },
    ],
    [
      'rewrite on tool_call',
      toolCall('fs_read', { path: '../a' }),
      { action: 'rewrite', arguments: { path: '/srv/docs/a' }, result: 'ignored' },
      { blocked: false, arguments: { path: '/srv/docs/a' } },
    ],
    ['allow on context', toolResult('fs_read', 'ok'), { action: 'allow' }, { blocked: false }],
    [
      'block on context',
      toolResult('fs_read', 'KEY'),
      { action: 'block', reason: 'private key' },
      { blocked: true, reason: 'private key' },
    ],
    [
      'rewrite on context',
      toolResult('fs_read', 'sk-1'),
      { action: 'rewrite', result: '[redacted]', arguments: { ignored: true } },
      { blocked: false, result: '[redacted]' },
    ],
  ])('%s', async (_name, input, verdict, decision) => {
    const { runner } = runnerFor(returning(verdict));
    await expect(runner.review(input, judgeContext())).resolves.toStrictEqual(decision);
  });

  it('builds a rulesJudge from rules', async () => {
    const { logger } = memoryLogger();
    const runner = createJudgeRunner(
      { rules: [{ surface: 'tool_call', tool: 'shell_*', action: 'block', reason: 'no shell' }], ...settings },
      logger,
    );
    await expect(runner.review(toolCall('shell_exec', {}), judgeContext())).resolves.toStrictEqual({
      blocked: true,
      reason: 'no shell',
    });
    await expect(runner.review(toolCall('fs_read', {}), judgeContext())).resolves.toStrictEqual({ blocked: false });
  });

  it('logs every verdict once, allow at info and block at warn', async () => {
    jest.useFakeTimers();
    const { runner, lines } = runnerFor(
      (input) =>
        new Promise((resolve) =>
          setTimeout(
            () => resolve(input.tool === 'shell' ? { action: 'block', reason: 'no shell' } : { action: 'allow' }),
            25,
          ),
        ),
    );
    const allowed = runner.review(toolCall('fs_read', {}), judgeContext());
    await jest.advanceTimersByTimeAsync(25);
    await allowed;
    const blocked = runner.review(toolResult('shell', 'x'), judgeContext({ loopId: 'loop-2' }));
    await jest.advanceTimersByTimeAsync(25);
    await blocked;
    expect(lines).toStrictEqual([
      {
        level: 'info',
        message: 'judge verdict',
        loopId: 'loop-1',
        surface: 'tool_call',
        tool: 'fs_read',
        action: 'allow',
        durationMs: 25,
        mode: 'enforce',
      },
      {
        level: 'warn',
        message: 'judge verdict',
        loopId: 'loop-2',
        surface: 'context',
        tool: 'shell',
        action: 'block',
        reason: 'no shell',
        durationMs: 25,
        mode: 'enforce',
      },
    ]);
  });

  it("logs a judge's reason with its credentials redacted, and leaves the operator's own judge's words to the model", async () => {
    const reason = 'the call carries Authorization: Bearer sk-live0123456789abcdefXYZ';
    const { runner, lines } = runnerFor(returning({ action: 'block', reason }));
    await expect(runner.review(toolCall('http_post', {}), judgeContext())).resolves.toStrictEqual({
      blocked: true,
      reason,
    });
    expect(lines[0].reason).toBe('the call carries Authorization: Bearer [redacted]');
  });

  it("redacts a failing judge's error wherever it goes: the model's block text, the verdict records and the log", async () => {
    const verdicts: { reason?: string }[] = [];
    const { logger, lines } = memoryLogger();
    const failing = {
      evaluate: () =>
        Promise.reject(
          new Error('POST https://judge.internal/v1 failed: Authorization: Bearer sk-live0123456789abcdefXYZ'),
        ),
    };
    const runner = createJudgeRunner({ judge: failing, ...settings }, logger, undefined, (_loopId, verdict) =>
      verdicts.push(verdict),
    );
    const shown = 'judge failed: POST https://judge.internal/v1 failed: Authorization: Bearer [redacted]';
    await expect(runner.review(toolCall('http_post', {}), judgeContext())).resolves.toStrictEqual({
      blocked: true,
      reason: shown,
    });
    expect(verdicts.map((verdict) => verdict.reason)).toEqual([shown]);
    expect(lines.map((line) => line.reason)).toEqual([shown]);
  });

  it("hands the judge the loop's request and self-call, under a signal of its own that the loop aborts", async () => {
    const loop = new AbortController();
    const req = { url: '/v1/chat/completions' } as Request;
    const context = judgeContext({ signal: loop.signal, req });
    const seen: JudgeContext[] = [];
    const { runner } = runnerFor((_input, judgeCtx) => {
      seen.push(judgeCtx);
      return new Promise(() => undefined);
    });
    const review = runner.review(toolCall('fs_read', {}), context);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen[0]).toMatchObject({ req, complete: context.complete, loopId: 'loop-1' });
    expect(seen[0].signal).not.toBe(loop.signal);
    expect(seen[0].signal.aborted).toBe(false);
    loop.abort();
    expect(seen[0].signal.aborted).toBe(true);
    await expect(review).resolves.toEqual({ blocked: true, reason: 'judge failed: aborted' });
  });
});

describe('createJudgeRunner in monitor mode', () => {
  it.each<[string, Verdict, string]>([
    ['a block', { action: 'block', reason: 'no shell' }, 'warn'],
    ['a rewrite', { action: 'rewrite', arguments: { cmd: 'true' }, reason: 'defused' }, 'info'],
  ])('logs %s and lets the call through untouched', async (_name, verdict, level) => {
    const { runner, lines } = runnerFor(returning(verdict), { mode: 'monitor' });
    await expect(runner.review(toolCall('shell', { cmd: 'rm -rf /' }), judgeContext())).resolves.toStrictEqual({
      blocked: false,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level,
      action: verdict.action,
      ...('reason' in verdict ? { reason: verdict.reason } : {}),
      mode: 'monitor',
    });
  });
});
