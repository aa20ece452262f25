import type { Request } from 'express';
import type { JudgeOption } from '../../lib/judge/options';
import { blockedText, createJudgeRunner } from '../../lib/judge/runner';
import type { JudgeDecision } from '../../lib/judge/runner';
import type { Judge, JudgeContext, JudgeInput, Logger, Verdict } from '../../lib/types';
import { judgeContext, toolCall, toolResult } from './inputs';

interface LogLine {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => lines.push({ level, message, meta });
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
}

const settings = { mode: 'enforce', timeoutSec: 10, onError: 'block' } as const;

function runnerFor(evaluate: Judge['evaluate'], overrides: Partial<JudgeOption> = {}) {
  const { logger, lines } = recordingLogger();
  const runner = createJudgeRunner({ judge: { evaluate }, ...settings, ...overrides } as JudgeOption, logger);
  return { runner, lines };
}

const returning = (verdict: unknown) => async () => verdict as Verdict;
const never = () => new Promise<Verdict>(() => undefined);

afterEach(() => jest.useRealTimers());

describe('blockedText', () => {
  it('is the text the model reads', () => {
    expect(blockedText('outside /srv/docs')).toBe('tool error: blocked by policy: outside /srv/docs');
  });
});

describe('createJudgeRunner, enforcing', () => {
  it.each<[string, JudgeInput, Verdict, JudgeDecision]>([
    ['allow on tool_call', toolCall('fs_read', {}), { action: 'allow' }, { blocked: false }],
    ['block on tool_call', toolCall('shell', {}), { action: 'block', reason: 'no shell' }, { blocked: true, reason: 'no shell' }],
    ['rewrite on tool_call', toolCall('fs_read', { path: '../a' }), { action: 'rewrite', arguments: { path: '/srv/docs/a' }, result: 'ignored' }, { blocked: false, arguments: { path: '/srv/docs/a' } }],
    ['allow on context', toolResult('fs_read', 'ok'), { action: 'allow' }, { blocked: false }],
    ['block on context', toolResult('fs_read', 'KEY'), { action: 'block', reason: 'private key' }, { blocked: true, reason: 'private key' }],
    ['rewrite on context', toolResult('fs_read', 'sk-1'), { action: 'rewrite', result: '[redacted]', arguments: { ignored: true } }, { blocked: false, result: '[redacted]' }],
  ])('%s', async (_name, input, verdict, decision) => {
    const { runner } = runnerFor(returning(verdict));
    await expect(runner.review(input, judgeContext())).resolves.toStrictEqual(decision);
  });

  it('builds a rulesJudge from rules', async () => {
    const { logger } = recordingLogger();
    const runner = createJudgeRunner({ rules: [{ surface: 'tool_call', tool: 'shell_*', action: 'block', reason: 'no shell' }], ...settings }, logger);
    await expect(runner.review(toolCall('shell_exec', {}), judgeContext())).resolves.toStrictEqual({ blocked: true, reason: 'no shell' });
    await expect(runner.review(toolCall('fs_read', {}), judgeContext())).resolves.toStrictEqual({ blocked: false });
  });

  it('logs every verdict once, allow at info and block at warn', async () => {
    jest.useFakeTimers();
    const { runner, lines } = runnerFor(
      (input) => new Promise((resolve) => setTimeout(() => resolve(input.tool === 'shell' ? { action: 'block', reason: 'no shell' } : { action: 'allow' }), 25)),
    );
    const allowed = runner.review(toolCall('fs_read', {}), judgeContext());
    await jest.advanceTimersByTimeAsync(25);
    await allowed;
    const blocked = runner.review(toolResult('shell', 'x'), judgeContext({ loopId: 'loop-2' }));
    await jest.advanceTimersByTimeAsync(25);
    await blocked;
    expect(lines).toStrictEqual([
      { level: 'info', message: 'judge verdict', meta: { loopId: 'loop-1', surface: 'tool_call', tool: 'fs_read', action: 'allow', reason: undefined, durationMs: 25, mode: 'enforce' } },
      { level: 'warn', message: 'judge verdict', meta: { loopId: 'loop-2', surface: 'context', tool: 'shell', action: 'block', reason: 'no shell', durationMs: 25, mode: 'enforce' } },
    ]);
  });

  it('hands the judge the loop\'s request and self-call, under a signal of its own', async () => {
    const loop = new AbortController();
    const req = { url: '/v1/chat/completions' } as Request;
    const context = judgeContext({ signal: loop.signal, req });
    const seen: JudgeContext[] = [];
    const { runner } = runnerFor(async (_input, judgeCtx) => {
      seen.push(judgeCtx);
      return { action: 'allow' };
    });
    await runner.review(toolCall('fs_read', {}), context);
    expect(seen[0]).toMatchObject({ req, complete: context.complete, loopId: 'loop-1' });
    expect(seen[0].signal).not.toBe(loop.signal);
    loop.abort();
    expect(seen[0].signal.aborted).toBe(true);
  });
});

describe('createJudgeRunner in monitor mode', () => {
  it.each<[string, Verdict, string]>([
    ['a block', { action: 'block', reason: 'no shell' }, 'warn'],
    ['a rewrite', { action: 'rewrite', arguments: { cmd: 'true' }, reason: 'defused' }, 'info'],
  ])('logs %s and lets the call through untouched', async (_name, verdict, level) => {
    const { runner, lines } = runnerFor(returning(verdict), { mode: 'monitor' });
    await expect(runner.review(toolCall('shell', { cmd: 'rm -rf /' }), judgeContext())).resolves.toStrictEqual({ blocked: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level, meta: { action: verdict.action, reason: 'reason' in verdict ? verdict.reason : undefined, mode: 'monitor' } });
  });
});

describe('createJudgeRunner fails closed', () => {
  it.each<[string, Judge['evaluate'], JudgeInput, string]>([
    ['a judge that throws', async () => { throw new Error('boom'); }, toolCall('fs_read', {}), 'judge failed: boom'],
    ['a judge that throws before its promise', () => { throw new Error('sync boom'); }, toolCall('fs_read', {}), 'judge failed: sync boom'],
    ['a judge that rejects with a string', () => Promise.reject('nope'), toolCall('fs_read', {}), 'judge failed: nope'],
    ['a verdict that is not an object', returning('yes'), toolCall('fs_read', {}), 'judge failed: invalid verdict: the verdict is not an object'],
    ['no verdict at all', returning(undefined), toolResult('fs_read', 'x'), 'judge failed: invalid verdict: the verdict is not an object'],
    ['an unknown action', returning({ action: 'deny' }), toolCall('fs_read', {}), 'judge failed: invalid verdict: action must be allow, block or rewrite, got "deny"'],
    ['a block without a reason', returning({ action: 'block', reason: ' ' }), toolCall('fs_read', {}), 'judge failed: invalid verdict: a block needs a reason'],
    ['a tool_call rewrite with array arguments', returning({ action: 'rewrite', arguments: ['a'] }), toolCall('fs_read', {}), 'judge failed: invalid verdict: a tool_call rewrite needs an arguments object'],
    ['a context rewrite without a result', returning({ action: 'rewrite', arguments: {} }), toolResult('fs_read', 'x'), 'judge failed: invalid verdict: a context rewrite needs a result string'],
  ])('on %s', async (_name, evaluate, input, reason) => {
    const { runner, lines } = runnerFor(evaluate);
    await expect(runner.review(input, judgeContext())).resolves.toStrictEqual({ blocked: true, reason });
    expect(lines).toMatchObject([{ level: 'warn', meta: { action: 'block', reason } }]);
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
    expect(lines[0].meta).toMatchObject({ action: 'block', reason: 'judge failed: timed out after 10s', durationMs: 10_000 });
  });

  it('on a judge that gives up when its signal aborts, still naming the timeout', async () => {
    jest.useFakeTimers();
    const signals: AbortSignal[] = [];
    const { runner } = runnerFor((_input, { signal }) => {
      signals.push(signal);
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('request aborted'))));
    }, { timeoutSec: 2.5 });
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
    await expect(runner.review(toolCall('fs_read', {}), judgeContext({ signal: AbortSignal.abort() }))).resolves.toStrictEqual({ blocked: true, reason: 'judge failed: aborted' });
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
    const { runner, lines } = runnerFor(async () => { throw new Error('boom'); }, { onError: 'allow' });
    await expect(runner.review(toolCall('fs_read', {}), judgeContext())).resolves.toStrictEqual({ blocked: false });
    expect(lines).toMatchObject([{ level: 'warn', meta: { action: 'allow', reason: 'judge failed: boom' } }]);
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
    await expect(runner.review(toolCall('shell', {}), judgeContext())).resolves.toStrictEqual({ blocked: true, reason: 'no shell' });
  });
});
