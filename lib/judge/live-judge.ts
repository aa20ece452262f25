import Joi from 'joi';
import { AgentLoopError } from '../errors';
import { hintsOf } from '../options/declaration';
import { validated } from '../options/option-error';
import type { Logger } from '../types';
import { judgeOption, judgeOptionSchema, type JudgeOption, type JudgeView } from './options';
import type { Rule } from './rule';
import type { JudgeRunner } from './runner';

const judgeSchema = Joi.object({ judge: judgeOptionSchema });
const judgeHints = hintsOf({ judge: judgeOption });

function kindOf(option: JudgeOption | undefined): JudgeView['judge'] {
  if (!option) return 'none';
  return 'rules' in option ? 'rules' : 'llm' in option ? 'llm' : 'custom';
}

/** The judge in force. Replacing its rules makes a new runner: a loop in flight keeps the one it started with. */
export class LiveJudge {
  private readonly listeners = new Set<(rules: Rule[], source: string) => void>();

  constructor(
    private option: JudgeOption | undefined,
    private readonly runnerFor: (option: JudgeOption) => JudgeRunner,
    private readonly logger: Logger,
    public runner = option && runnerFor(option),
  ) {}

  view(): JudgeView {
    const judge = kindOf(this.option);
    return {
      judge,
      ...(this.option ? { mode: this.option.mode } : {}),
      rules: this.option && 'rules' in this.option ? this.option.rules : null,
    };
  }

  /**
   * Validated like the `judge` option (RE2 patterns included); a bad list throws its coded error and changes nothing.
   * Without a judge, the rules become one (`mode: 'enforce'`); an llm or custom judge has no rules to replace.
   */
  replaceRules(rules: unknown, source = 'judge.replaceRules()'): JudgeView {
    const kind = kindOf(this.option);
    if (kind === 'llm' || kind === 'custom') {
      throw new AgentLoopError(
        'ERR_AGENT_LOOP_NOT_A_RULES_JUDGE',
        `agentLoop: the judge is ${kind === 'llm' ? 'an llm judge' : 'a custom Judge'}, ` +
          'which has no rules to replace; configure judge: { rules: [...] } to manage rules at run time.',
      );
    }
    const { mode, timeoutSec, onError } = this.option ?? {};
    const defined = Object.fromEntries(
      Object.entries({ mode, timeoutSec, onError }).filter(([, value]) => value !== undefined),
    );
    const { judge } = validated<{ judge: JudgeOption }>(judgeSchema, { judge: { rules, ...defined } }, judgeHints);
    this.runner = this.runnerFor(judge);
    this.option = judge;
    const replaced = (judge as { rules: Rule[] }).rules;
    this.logger.info('agent-loop judge rules replaced', { source, rules: replaced.length });
    for (const listener of this.listeners) listener(replaced, source);
    return this.view();
  }

  /** `listener` hears of every replacement of the rules, with who made it */
  onReplace(listener: (rules: Rule[], source: string) => void): void {
    this.listeners.add(listener);
  }
}
