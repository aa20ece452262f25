import Joi from 'joi';
import type { CustomHelpers } from 'joi';
import type { Judge } from '../types';
import type { LlmJudgeOptions } from './llm';
import type { Rule } from './rule';
import { rulesSchema } from './rule-schema';

export interface JudgeSettings {
  mode: 'enforce' | 'monitor';
  timeoutSec: number;
  onError: 'block' | 'allow';
}

/** Validated: a bare `Judge` is lifted into `{ judge }`, so there are three sources. */
export type JudgeOption = ({ rules: Rule[] } | { llm: LlmJudgeOptions } | { judge: Judge }) & JudgeSettings;

/** What `judgeRules.get()` and the admin API show of the judge in force. */
export interface JudgeView {
  /** `rules`: a rules judge, whose rules can be replaced; `llm`, `custom` (a Judge object) or `none` */
  judge: 'rules' | 'llm' | 'custom' | 'none';
  mode?: JudgeSettings['mode'];
  /** null unless `judge` is `rules` */
  rules: Rule[] | null;
}

const settings = {
  mode: Joi.string().valid('enforce', 'monitor').default('enforce'),
  timeoutSec: Joi.number().min(0.1).max(120).default(10),
  onError: Joi.string().valid('block', 'allow').default('block'),
};

/** Joi validates a shallow copy; the judge itself (its prototype, private fields) must reach the runner. */
function originalJudge(_copy: unknown, helpers: CustomHelpers<Judge>): Judge {
  return helpers.original;
}

function liftBareJudge(copy: JudgeSettings, helpers: CustomHelpers<Judge>): JudgeOption {
  return { judge: helpers.original, mode: copy.mode, timeoutSec: copy.timeoutSec, onError: copy.onError };
}

const judgeObject = Joi.object({ evaluate: Joi.function().required() }).unknown(true);

/** A Judge may carry its own state, so its other keys are not checked. */
const bareJudge = judgeObject.keys(settings).custom(liftBareJudge);

const sourcedJudge = Joi.object({
  rules: rulesSchema,
  llm: Joi.object({ model: Joi.string().required(), policy: Joi.string().required() }),
  judge: judgeObject.custom(originalJudge),
  ...settings,
})
  .xor('rules', 'llm', 'judge')
  .messages({
    'object.missing': '{{#label}} must be a Judge (an object with evaluate()) or have one of rules, llm or judge',
    'object.xor': '{{#label}} must have only one of rules, llm and judge',
  });

export const judgeOptionSchema: Joi.Schema<JudgeOption> = Joi.alternatives().conditional(
  Joi.object({ evaluate: Joi.exist() }).unknown(true),
  { then: bareJudge, otherwise: sourcedJudge },
);
