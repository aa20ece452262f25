import { LiveJudge } from '../../lib/judge/live-judge';
import { judgeOptionSchema, type JudgeOption } from '../../lib/judge/options';
import { createJudgeRunner } from '../../lib/judge/runner';
import { memoryLogger } from '../helpers/memory-logger';
import { judgeContext, toolCall } from './inputs';

const noShell = { surface: 'tool_call', tool: 'shell_*', action: 'block', reason: 'no shell' } as const;
const noFs = { surface: 'tool_call', tool: 'fs_*', action: 'block', reason: 'no files' } as const;

function option(given: unknown): JudgeOption {
  const { error, value } = judgeOptionSchema.validate(given);
  if (error) throw error;
  return value;
}

function liveJudge(given?: unknown) {
  const { logger, lines } = memoryLogger();
  const judge = new LiveJudge(
    given === undefined ? undefined : option(given),
    (valid) => createJudgeRunner(valid, logger),
    logger,
  );
  return { judge, lines };
}

const REPLACED = 'agent-loop judge rules replaced';
const replacements = (lines: Record<string, unknown>[]) => lines.filter((line) => line.message === REPLACED);

const verdictOn = async (judge: LiveJudge, tool: string) => judge.runner!.review(toolCall(tool, {}), judgeContext());

describe('LiveJudge', () => {
  it.each<[string, unknown, object]>([
    ['no judge', undefined, { judge: 'none', rules: null }],
    ['a rules judge', { rules: [noShell], mode: 'monitor' }, { judge: 'rules', mode: 'monitor', rules: [noShell] }],
    [
      'an llm judge',
      { llm: { model: 'judge-1', policy: 'no secrets' } },
      { judge: 'llm', mode: 'enforce', rules: null },
    ],
    [
      'a custom judge',
      { evaluate: async () => ({ action: 'allow' }) },
      { judge: 'custom', mode: 'enforce', rules: null },
    ],
  ])('shows %s', (_name, given, view) => {
    const { judge } = liveJudge(given);
    expect(judge.view()).toEqual(view);
    expect(judge.runner === undefined).toBe(given === undefined);
  });

  it('replaces the rules with a new runner, keeping the settings, and logs it with its source', async () => {
    const { judge, lines } = liveJudge({ rules: [noShell], mode: 'monitor', timeoutSec: 3 });
    const before = judge.runner;
    expect(judge.replaceRules([noFs, noShell], 'admin API')).toEqual({
      judge: 'rules',
      mode: 'monitor',
      rules: [noFs, noShell],
    });
    expect(judge.runner).not.toBe(before);
    expect(replacements(lines)).toEqual([{ level: 'info', message: REPLACED, source: 'admin API', rules: 2 }]);
  });

  it('becomes a rules judge, enforcing, when there was none', async () => {
    const { judge, lines } = liveJudge();
    expect(judge.replaceRules([noShell])).toEqual({ judge: 'rules', mode: 'enforce', rules: [noShell] });
    await expect(verdictOn(judge, 'shell_exec')).resolves.toEqual({ blocked: true, reason: 'no shell' });
    expect(replacements(lines).map((line) => line.source)).toEqual(['judge.replaceRules()']);
  });

  it('refuses bad rules as the option does, changing nothing', async () => {
    const { judge, lines } = liveJudge({ rules: [noShell] });
    const runner = judge.runner;
    expect(() => judge.replaceRules([{ surface: 'context', when: { content: 'sk-(' }, action: 'block' }])).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_INVALID_OPTION',
        message: expect.stringContaining('rules[0].when.content'),
      }),
    );
    expect(judge.runner).toBe(runner);
    expect(judge.view().rules).toEqual([noShell]);
    await expect(verdictOn(judge, 'shell_exec')).resolves.toEqual({ blocked: true, reason: 'no shell' });
    expect(replacements(lines)).toEqual([]);
  });

  it.each([
    ['an llm judge', { llm: { model: 'judge-1', policy: 'no secrets' } }, 'an llm judge'],
    ['a custom judge', { evaluate: async () => ({ action: 'allow' }) }, 'a custom Judge'],
  ])('has no rules to replace in %s', (_name, given, said) => {
    const { judge } = liveJudge(given);
    expect(() => judge.replaceRules([noShell])).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NOT_A_RULES_JUDGE',
        message: `agentLoop: the judge is ${said}, which has no rules to replace; configure judge: { rules: [...] } to manage rules at run time.`,
      }),
    );
  });
});
