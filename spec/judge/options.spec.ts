import Joi from 'joi';
import { judgeOptionSchema } from '../../lib/judge/options';
import type { Judge, Verdict } from '../../lib/types';
import { judgeContext, toolCall } from './inputs';

const rule = { surface: 'tool_call', tool: 'shell_*', action: 'block', reason: 'no shell' };
const defaults = { mode: 'enforce', timeoutSec: 10, onError: 'block' };

class PrivateJudge implements Judge {
  #verdict: Verdict = { action: 'block', reason: 'from a private field' };
  async evaluate(): Promise<Verdict> {
    return this.#verdict;
  }
}

function validated(option: unknown): unknown {
  const { error, value } = judgeOptionSchema.validate(option);
  if (error) throw error;
  return value;
}

function problem(option: unknown): string | undefined {
  return judgeOptionSchema.validate(option).error?.message;
}

describe('judgeOptionSchema accepts', () => {
  it('rules, with defaults', () => {
    expect(validated({ rules: [rule] })).toEqual({ rules: [rule], ...defaults });
  });

  it('an llm judge with every setting', () => {
    const option = {
      llm: { model: 'judge-1', policy: 'no secrets' },
      mode: 'monitor',
      timeoutSec: 0.1,
      onError: 'allow',
    };
    expect(validated(option)).toEqual(option);
  });

  it('{ judge }, keeping the very same judge object', async () => {
    const judge = new PrivateJudge();
    const value = validated({ judge, timeoutSec: 120 }) as { judge: Judge };
    expect(value).toEqual({ judge, ...defaults, timeoutSec: 120 });
    expect(value.judge).toBe(judge);
    await expect(value.judge.evaluate(toolCall('x', {}), judgeContext())).resolves.toEqual({
      action: 'block',
      reason: 'from a private field',
    });
  });

  it('a bare Judge, lifted into { judge } with its settings', () => {
    const judge = Object.assign(new PrivateJudge(), { mode: 'monitor', cache: new Map() });
    const value = validated(judge) as { judge: Judge };
    expect(value).toEqual({ judge, ...defaults, mode: 'monitor' });
    expect(value.judge).toBe(judge);
  });

  it('a validated option again, unchanged', () => {
    const once = validated({ judge: new PrivateJudge() });
    expect(validated(once)).toEqual(once);
  });
});

describe('judgeOptionSchema rejects', () => {
  const regexRule = (when: object) => ({ surface: 'context', when, action: 'block' });
  it.each<[string, unknown, string]>([
    [
      'a bad content regex, naming the rule',
      { rules: [rule, regexRule({ content: 'sk-(' })] },
      '"rules[1].when.content" is not a valid regular expression: missing closing ): `sk-(`',
    ],
    [
      'a bad argument regex',
      { rules: [regexRule({ argument: 'path', matches: '[a-' })] },
      '"rules[0].when.matches" is not a valid regular expression: missing closing ]: `[a-`',
    ],
    ['an unknown option key', { rules: [], colour: 'red' }, '"colour" is not allowed'],
    ['an unknown rule key', { rules: [{ ...rule, tools: 'x' }] }, '"rules[0].tools" is not allowed'],
    [
      'an unknown condition key',
      { rules: [regexRule({ argument: 'path', matches: 'x', flags: 'i' })] },
      '"rules[0].when.flags" is not allowed',
    ],
    [
      'both conditions at once',
      { rules: [regexRule({ content: 'x', argument: 'path' })] },
      '"rules[0].when.argument" is not allowed',
    ],
    ['an empty condition', { rules: [regexRule({})] }, '"rules[0].when.argument" is required'],
    [
      'a bad argument path',
      { rules: [regexRule({ argument: 'a..b', matches: 'x' })] },
      '"rules[0].when.argument" must be a dotted path like "path" or "options.target"',
    ],
    [
      'a bad surface',
      { rules: [{ ...rule, surface: 'result' }] },
      '"rules[0].surface" must be one of [tool_call, context]',
    ],
    [
      'a bad action',
      { rules: [{ ...rule, action: 'deny' }] },
      '"rules[0].action" must be one of [allow, block, rewrite, ask]',
    ],
    [
      'a rewrite without replace',
      { rules: [{ surface: 'context', when: { content: 'x' }, action: 'rewrite' }] },
      '"rules[0].replace" is required for action "rewrite"',
    ],
    [
      'replace without a rewrite',
      { rules: [{ ...rule, replace: 'x' }] },
      '"rules[0].replace" is only allowed with action "rewrite"',
    ],
    [
      'content on the tool_call surface',
      { rules: [{ ...rule, when: { content: 'x' } }] },
      '"rules[0]": when.content applies to the context surface; on tool_call use when.argument and when.matches',
    ],
    [
      'a tool_call rewrite without an argument',
      { rules: [{ surface: 'tool_call', action: 'rewrite', replace: '' }] },
      '"rules[0]": a tool_call rewrite needs when.argument and when.matches to know what to rewrite',
    ],
    [
      'a context rewrite of an argument',
      { rules: [{ surface: 'context', when: { argument: 'a', matches: 'x' }, action: 'rewrite', replace: '' }] },
      '"rules[0]": a context rewrite needs when.content to know what to rewrite',
    ],
    [
      'an ask on the context surface',
      { rules: [{ surface: 'context', action: 'ask' }] },
      '"rules[0]": action \'ask\' applies to the tool_call surface (a person approves a call before it runs); a result cannot wait for approval',
    ],
    ['a bad mode', { rules: [], mode: 'audit' }, '"mode" must be one of [enforce, monitor]'],
    [
      'a bad mode on a bare Judge',
      { evaluate: async () => ({ action: 'allow' }), mode: 'audit' },
      '"mode" must be one of [enforce, monitor]',
    ],
    ['a timeout too short', { rules: [], timeoutSec: 0.05 }, '"timeoutSec" must be greater than or equal to 0.1'],
    ['a timeout too long', { rules: [], timeoutSec: 121 }, '"timeoutSec" must be less than or equal to 120'],
    ['a bad onError', { rules: [], onError: 'ignore' }, '"onError" must be one of [block, allow]'],
    [
      'no judge at all',
      { mode: 'monitor' },
      '"value" must be a Judge (an object with evaluate()) or have one of rules, llm or judge',
    ],
    [
      'two judges',
      { rules: [], llm: { model: 'm', policy: 'p' } },
      '"value" must have only one of rules, llm and judge',
    ],
    ['an llm without a policy', { llm: { model: 'm' } }, '"llm.policy" is required'],
    ['an evaluate that is not a function', { evaluate: 'yes' }, '"evaluate" must be of type function'],
    ['a judge without evaluate', { judge: {} }, '"judge.evaluate" is required'],
    ['not an object', 'strict', '"value" must be of type object'],
  ])('%s', (_name, option, message) => {
    expect(problem(option)).toBe(message);
  });

  it('names the judge option when nested in the loop options', () => {
    const options = Joi.object({ judge: judgeOptionSchema });
    const { error } = options.validate({
      judge: { rules: [rule, { surface: 'context', when: { content: '(' }, action: 'block' }] },
    });
    expect(error?.message).toBe(
      '"judge.rules[1].when.content" is not a valid regular expression: missing closing ): `(`',
    );
  });
});
