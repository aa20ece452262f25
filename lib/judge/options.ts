import Joi from 'joi';
import type { CustomHelpers } from 'joi';
import { defaulted, option, required, schemasOf, type OptionsIn, type OptionsOut } from '../options/declaration';
import type { Judge } from '../types';
import type { Rule } from './rule';
import { rulesOption } from './rule-schema';

const TIMEOUT_SEC = { min: 0.1, max: 120, fallback: 10 };

const judgeSettings = {
  mode: defaulted<'enforce' | 'monitor'>({
    schema: Joi.string().valid('enforce', 'monitor').default('enforce'),
    hint: "it must be 'enforce' (verdicts apply) or 'monitor' (verdicts are only logged), e.g. mode: 'enforce'",
  }),
  timeoutSec: defaulted<number>({
    schema: Joi.number().min(TIMEOUT_SEC.min).max(TIMEOUT_SEC.max).default(TIMEOUT_SEC.fallback),
    hint:
      `it must be a number of seconds from ${TIMEOUT_SEC.min} to ${TIMEOUT_SEC.max} ` +
      `(default ${TIMEOUT_SEC.fallback}), e.g. timeoutSec: ${TIMEOUT_SEC.fallback}`,
  }),
  onError: defaulted<'block' | 'allow'>({
    schema: Joi.string().valid('block', 'allow').default('block'),
    hint: "it must be 'block' (a failing judge blocks) or 'allow', e.g. onError: 'block'",
  }),
};

export type JudgeSettings = OptionsOut<typeof judgeSettings>;

const llmOptions = {
  model: required<string>({ schema: Joi.string() }),
  policy: required<string>({ schema: Joi.string() }),
};

export type LlmJudgeOptions = OptionsIn<typeof llmOptions>;

export const llmOption = option<LlmJudgeOptions>({
  schema: Joi.object(schemasOf(llmOptions)),
  hint: "it must be { model, policy }, e.g. llm: { model: 'gpt-4o-mini', policy: 'Block any call that deletes data.' }",
  inner: llmOptions,
});

/** Validated: a bare `Judge` is lifted into `{ judge }`, so there are three sources. */
export type JudgeOption = ({ rules: Rule[] } | { llm: LlmJudgeOptions } | { judge: Judge }) & JudgeSettings;

export type JudgeOptionInput = (Judge | { rules: Rule[] } | { llm: LlmJudgeOptions } | { judge: Judge }) &
  Partial<JudgeSettings>;

/** What `judgeRules.get()` and the admin API show of the judge in force. */
export interface JudgeView {
  /** `rules`: a rules judge, whose rules can be replaced; `llm`, `custom` (a Judge object) or `none` */
  judge: 'rules' | 'llm' | 'custom' | 'none';
  mode?: JudgeSettings['mode'];
  /** null unless `judge` is `rules` */
  rules: Rule[] | null;
}

/** Joi validates a shallow copy; the judge itself (its prototype, private fields) must reach the runner. */
function originalJudge(_copy: unknown, helpers: CustomHelpers<Judge>): Judge {
  return helpers.original;
}

function liftBareJudge(copy: JudgeSettings, helpers: CustomHelpers<Judge>): JudgeOption {
  return { judge: helpers.original, mode: copy.mode, timeoutSec: copy.timeoutSec, onError: copy.onError };
}

const judgeObject = Joi.object({ evaluate: Joi.function().required() }).unknown(true);

/** A Judge may carry its own state, so its other keys are not checked. */
const bareJudge = judgeObject.keys(schemasOf(judgeSettings)).custom(liftBareJudge);

const sourcedJudge = Joi.object({
  rules: rulesOption.schema,
  llm: llmOption.schema,
  judge: judgeObject.custom(originalJudge),
  ...schemasOf(judgeSettings),
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

export const judgeOption = option<JudgeOptionInput, JudgeOption>({
  schema: judgeOptionSchema,
  hint:
    'it must be a Judge ({ evaluate }), { rules: [...] }, { llm: { model, policy } } or { judge }, e.g. ' +
    "judge: { rules: [{ surface: 'tool_call', tool: 'shell', action: 'block' }], mode: 'enforce' }",
  doc: {
    range:
      `a \`Judge\` (\`{ evaluate }\`), \`{ rules: [...] }\`, \`{ llm: { model, policy } }\` or \`{ judge ` +
      `}\`, plus \`mode: 'enforce' | 'monitor'\`, \`timeoutSec\` (${TIMEOUT_SEC.min} to ${TIMEOUT_SEC.max}, ` +
      `default ${TIMEOUT_SEC.fallback}), \`onError: 'block' | 'allow'\` (default \`block\`)`,
    fallback: 'none',
    does: 'reviews every tool call (`tool_call` surface) and every result (`context` surface)',
  },
  inner: { rules: rulesOption, llm: llmOption, ...judgeSettings },
});
