import Joi from 'joi';
import type { CustomHelpers } from 'joi';
import { RE2JS } from 're2js';
import { option, required, schemaOf, schemasOf, validator } from '../options/declaration';
import { CONTROL_CHARACTER } from './paths-within';
import type { JudgeSurface } from '../types';

export type RuleCondition =
  | { argument: string; matches: string }
  | { argument: string; within: readonly string[] }
  | { content: string }
  | { annotation: string; is?: boolean };

export interface Rule {
  surface: JudgeSurface;
  /** glob: `*` matches any run of characters */
  tool?: string;
  when?: RuleCondition;
  action: 'allow' | 'block' | 'rewrite' | 'ask';
  reason?: string;
  /** for `rewrite`: replacement for every match of the rule's regex */
  replace?: string;
}

function javaScriptAccepts(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** Each validated condition's pattern, as validation compiled it: the judge matches with it, compiling it no more. */
const compiledPatterns = new WeakMap<object, RE2JS>();

/** The pattern validation compiled for this condition (`when`) of a rule, if it did. */
export const compiledPattern = (condition: object): RE2JS | undefined => compiledPatterns.get(condition);

/** Rules match with RE2 (linear time); a pattern only JavaScript's backtracking engine takes is refused, saying why. */
function compilesAsRegex(source: string, helpers: CustomHelpers): string | Joi.ErrorReport {
  try {
    const pattern = RE2JS.compile(source);
    // the condition object holding the pattern, as validation gives it back: what the judge is built from
    const condition: unknown = helpers.state.ancestors[0];
    if (typeof condition === 'object' && condition !== null) compiledPatterns.set(condition, pattern);
    return source;
  } catch (error) {
    const problem = (error as Error).message.replace(/^error parsing regexp: /, '');
    return helpers.error(javaScriptAccepts(source) ? 'regex.unsupported' : 'regex.invalid', { problem });
  }
}

const regex = Joi.string()
  .custom(compilesAsRegex)
  .messages({
    'regex.invalid': '{{#label}} is not a valid regular expression: {#problem}',
    'regex.unsupported':
      '{{#label}} is not supported: {#problem}. Rules match in linear time (RE2 syntax: no lookahead, lookbehind ' +
      "or backreferences); for an allow-list, put an 'allow' rule with the allowed pattern before a 'block' " +
      'rule',
  });

const folder = Joi.string().pattern(/^\//).pattern(CONTROL_CHARACTER, { invert: true }).messages({
  'string.pattern.base': '{{#label}} must be an absolute folder like "/srv/docs"',
  'string.pattern.invert.base': '{{#label}} must be an absolute folder like "/srv/docs"',
});

const argumentCondition = Joi.object({
  argument: Joi.string()
    .pattern(/^[^.]+(\.[^.]+)*$/)
    .required()
    .messages({ 'string.pattern.base': '{{#label}} must be a dotted path like "path" or "options.target"' }),
  matches: regex,
  within: Joi.array()
    .items(folder)
    .min(1)
    .messages({ 'array.min': '{{#label}} must name at least one folder, e.g. within: ["/srv/docs"]' }),
})
  .xor('matches', 'within')
  .messages({
    'object.missing': '{{#label}} needs matches (a regex) or within (a list of folders, e.g. within: ["/srv/docs"])',
    'object.xor': '{{#label}} takes matches or within, not both: write two rules',
  });

const contentCondition = Joi.object({ content: regex.required() });

const annotationCondition = Joi.object({
  annotation: Joi.string()
    .required()
    .messages({ 'string.base': '{{#label}} must name a tool annotation such as "destructiveHint" or "readOnlyHint"' }),
  is: Joi.boolean(),
});

function conditionTarget(rule: Rule): 'argument' | 'paths' | 'content' | 'annotation' | undefined {
  if (!rule.when) return undefined;
  if ('annotation' in rule.when) return 'annotation';
  if ('within' in rule.when) return 'paths';
  return 'content' in rule.when ? 'content' : 'argument';
}

function coherentRule(rule: Rule, helpers: CustomHelpers): Rule | Joi.ErrorReport {
  const target = conditionTarget(rule);
  if (rule.surface === 'tool_call' && target === 'content') return helpers.error('rule.contentOnToolCall');
  if (rule.action === 'ask' && rule.surface !== 'tool_call') return helpers.error('rule.askOnContext');
  if (rule.action !== 'rewrite') return rule;
  if (target === 'paths') return helpers.error('rule.rewriteWithin');
  if (rule.surface === 'tool_call' && target !== 'argument') return helpers.error('rule.rewriteNeedsArgument');
  if (rule.surface === 'context' && target !== 'content') return helpers.error('rule.rewriteNeedsContent');
  return rule;
}

const whenSchema = Joi.alternatives().conditional('.content', {
  is: Joi.exist(),
  then: contentCondition,
  otherwise: Joi.alternatives().conditional('.annotation', {
    is: Joi.exist(),
    then: annotationCondition,
    otherwise: argumentCondition,
  }),
});

const ruleOptions = {
  surface: required<Rule['surface']>({
    schema: Joi.string().valid('tool_call', 'context'),
    hint:
      "it must be 'tool_call' (before a call runs) " +
      "or 'context' (its result, before the model reads it), e.g. surface: 'tool_call'",
  }),
  tool: option<string>({ schema: Joi.string(), hint: "it must be a tool name glob, e.g. tool: 'files_*'" }),
  when: option<Rule['when']>({
    schema: whenSchema,
    hint:
      "it must be { argument: 'dotted.path', matches: 'regex' }, { argument: 'dotted.path', within: " +
      "['/folder'] }, { content: 'regex' } or { annotation: 'destructiveHint', is?: true }, e.g. when: { " +
      "argument: 'path', within: ['/srv/docs'] }",
  }),
  action: required<Rule['action']>({
    schema: Joi.string().valid('allow', 'block', 'rewrite', 'ask'),
    hint: "it must be 'allow', 'block', 'rewrite' or 'ask' (a person approves the call first), e.g. action: 'block'",
  }),
  reason: option<string>({ schema: Joi.string() }),
  replace: option<string>({
    schema: Joi.string()
      .allow('')
      .when('action', { is: 'rewrite', then: Joi.required(), otherwise: Joi.forbidden() })
      .messages({
        'any.required': '{{#label}} is required for action "rewrite"',
        'any.unknown': '{{#label}} is only allowed with action "rewrite"',
      }),
  }),
};

const ruleSchema = Joi.object<Rule>(schemasOf(ruleOptions))
  .custom(coherentRule)
  .messages({
    'rule.contentOnToolCall':
      '{{#label}}: when.content applies to the context surface; on tool_call use when.argument and when.matches',
    'rule.askOnContext':
      "{{#label}}: action 'ask' applies to the tool_call surface (a person approves a call before it runs); " +
      'a result cannot wait for approval',
    'rule.rewriteNeedsArgument':
      '{{#label}}: a tool_call rewrite needs when.argument and when.matches to know what to rewrite',
    'rule.rewriteNeedsContent': '{{#label}}: a context rewrite needs when.content to know what to rewrite',
    'rule.rewriteWithin':
      '{{#label}}: when.within only allows or blocks; a rewrite needs when.matches to know what to rewrite',
  });

export const rulesOption = option<Rule[]>({
  schema: Joi.array().items(ruleSchema),
  hint:
    "rules are a list like [{ surface: 'tool_call', tool: 'files_*', " +
    "when: { argument: 'path', matches: '^/etc/' }, action: 'block', reason: 'no system files' }]",
  list: true,
  inner: ruleOptions,
});

const rulesDeclarations = { rules: required<Rule[]>(rulesOption) };

const rulesValidator = validator<{ rules: Rule[] }>('rulesJudge', schemaOf(rulesDeclarations), rulesDeclarations);

export function validateRules(rules: Rule[]): Rule[] {
  return rulesValidator({ rules }).rules;
}
