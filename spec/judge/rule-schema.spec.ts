import { compiledPattern, validateRules } from '../../lib/judge/rule-schema';
import { rulesJudge } from '../../lib/judge/rules';
import { compileRule, type Rule } from '../../lib/judge/rule';
import { configOf } from '../../lib/options/agent-loop';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** joi's words about a rule, where every option message puts them: after the option's path and its value. */
function unified(words: string): RegExp {
  const [, path, problem] = /^"([^"]+)":? (.*)$/.exec(words)!;
  return new RegExp(`^rulesJudge: option '${escaped(path)}' is .+; ${escaped(problem)}; (it must be|rules are)`);
}

const noShell: Rule = { surface: 'tool_call', tool: 'shell_exec', action: 'block', reason: 'no shell' };

describe('the rules schema, as rulesJudge validates with it', () => {
  it('takes every kind of rule as given', () => {
    const rules: Rule[] = [
      noShell,
      { surface: 'tool_call', tool: 'fs_*', when: { argument: 'path', within: ['/srv/docs'] }, action: 'allow' },
      {
        surface: 'tool_call',
        when: { argument: 'options.url', matches: '^http:' },
        action: 'rewrite',
        replace: 'https:',
      },
      { surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'ask', reason: 'it deletes' },
      { surface: 'context', when: { content: 'sk-[A-Za-z0-9]{20,}' }, action: 'rewrite', replace: '' },
    ];
    expect(validateRules(rules)).toEqual(rules);
  });

  it.each<[string, Rule, string]>([
    [
      'an annotation that is not a name',
      { surface: 'tool_call', when: { annotation: 7 as unknown as string }, action: 'block' },
      '"rules[0].when.annotation" must name a tool annotation such as "destructiveHint" or "readOnlyHint"',
    ],
    [
      'an `is` that is not a boolean',
      { surface: 'tool_call', when: { annotation: 'readOnlyHint', is: 'no' as unknown as boolean }, action: 'block' },
      '"rules[0].when.is" must be a boolean',
    ],
    [
      'a rewrite with within',
      { surface: 'tool_call', when: { argument: 'path', within: ['/srv'] }, action: 'rewrite', replace: '' },
      '"rules[0]": when.within only allows or blocks; a rewrite needs when.matches to know what to rewrite',
    ],
    [
      'a relative folder',
      { surface: 'tool_call', when: { argument: 'path', within: ['srv/docs'] }, action: 'allow' },
      '"rules[0].when.within[0]" must be an absolute folder like "/srv/docs"',
    ],
    [
      'a folder with a newline',
      { surface: 'tool_call', when: { argument: 'path', within: ['/srv\n'] }, action: 'allow' },
      '"rules[0].when.within[0]" must be an absolute folder like "/srv/docs"',
    ],
    [
      'no folder',
      { surface: 'tool_call', when: { argument: 'path', within: [] }, action: 'allow' },
      '"rules[0].when.within" must name at least one folder, e.g. within: ["/srv/docs"]',
    ],
    [
      'matches and within at once',
      { surface: 'tool_call', when: { argument: 'path', within: ['/srv'], matches: 'x' } as never, action: 'allow' },
      '"rules[0].when" takes matches or within, not both: write two rules',
    ],
    [
      'an argument without a test',
      { surface: 'tool_call', when: { argument: 'path' } as never, action: 'allow' },
      '"rules[0].when" needs matches (a regex) or within (a list of folders, e.g. within: ["/srv/docs"])',
    ],
    [
      'a tool_call rewrite on an annotation',
      { surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'rewrite', replace: '' },
      '"rules[0]": a tool_call rewrite needs when.argument and when.matches to know what to rewrite',
    ],
  ])('refuses %s', (_name, rule, message) => {
    expect(() => rulesJudge([rule])).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_INVALID_OPTION',
        message: expect.stringMatching(unified(message)),
      }),
    );
  });

  it('names a misspelt key of a rule, with a guess', () => {
    expect(() => rulesJudge([{ surface: 'tool_call', acton: 'block' } as never])).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_UNKNOWN_OPTION',
        message:
          "rulesJudge: unknown option 'rules[0].acton'. Did you mean `action`? Known options here: surface, tool, when, action, reason, replace.",
      }),
    );
  });

  it('refuses bad rules when made, naming the rule', () => {
    expect(() => rulesJudge([noShell, { surface: 'context', when: { content: 'sk-(' }, action: 'block' }])).toThrow(
      "rulesJudge: option 'rules[1].when.content' is \"sk-(\"; is not a valid regular expression: missing closing ): `sk-(`; it must be { argument: 'dotted.path'",
    );
  });

  it.each([
    ['a lookahead', '^(?!/srv/docs/)', 'invalid or unsupported Perl syntax: `(?!`'],
    ['a backreference', '(a)\\1', 'invalid escape sequence: `\\1`'],
  ])(
    'refuses %s when made, saying rules match in linear time and how to write an allow-list',
    (_case, pattern, problem) => {
      expect(() =>
        rulesJudge([{ surface: 'tool_call', when: { argument: 'path', matches: pattern }, action: 'block' }]),
      ).toThrow(
        `rulesJudge: option 'rules[0].when.matches' is ${JSON.stringify(pattern)}; is not supported: ${problem}. Rules match in linear time (RE2 syntax: no lookahead, lookbehind or backreferences); for an allow-list, put an 'allow' rule with the allowed pattern before a 'block' rule; it must be`,
      );
    },
  );

  it('compiles each pattern of a rule set once, as it validates it: the judge matches with that one', () => {
    const rules: Rule[] = [
      { surface: 'tool_call', when: { argument: 'path', matches: '^/etc/' }, action: 'block' },
      { surface: 'context', when: { content: 'sk-[A-Za-z0-9]{20,}' }, action: 'rewrite', replace: '' },
    ];
    const { judge } = configOf({ judge: { rules } });
    for (const validated of [...validateRules(rules), ...(judge as { rules: Rule[] }).rules]) {
      expect(compiledPattern(validated.when!)).toBeDefined();
      expect(compileRule(validated).pattern).toBe(compiledPattern(validated.when!));
    }
    // a rule never validated has no pattern compiled for it
    expect(compiledPattern(rules[0].when!)).toBeUndefined();
  });
});
