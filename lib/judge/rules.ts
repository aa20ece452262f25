import type { RE2JS } from 're2js';
import type { Judge, JudgeInput, Verdict } from '../types';
import { compileRule, matchedText, withValueAt } from './rule';
import type { CompiledRule, Rule } from './rule';
import { validateRules } from './rule-schema';

function defaultBlockReason(input: JudgeInput): string {
  return input.surface === 'tool_call'
    ? `'${input.tool}' may not be called`
    : `the result of '${input.tool}' is withheld`;
}

/**
 * The first `allow`, `block` or `ask` rule that matches decides (`ask` is an `allow` once a person approved the call).
 * `rewrite` rules before it all apply, in order, so that several redaction rules (API keys, card numbers) all redact
 * the same result.
 */
function verdictFor(rules: CompiledRule[], input: JudgeInput): Verdict {
  let args = input.arguments;
  let result = input.result ?? '';
  const rewriteReasons: string[] = [];
  let rewritten = false;
  for (const compiled of rules) {
    const text = matchedText(compiled, input, args, result);
    if (text === undefined) continue;
    const { action, reason, replace = '' } = compiled.rule;
    if (action === 'block') return { action: 'block', reason: reason ?? defaultBlockReason(input) };
    if (action === 'allow' || (action === 'ask' && input.approved)) break;
    if (action === 'ask')
      return { action: 'ask', ...(reason ? { reason } : {}), ...(rewritten ? { arguments: args } : {}) };
    const replaced = (compiled.pattern as RE2JS).matcher(text).replaceAll(replace);
    if (compiled.argumentPath) args = withValueAt(args, compiled.argumentPath, replaced);
    else result = replaced;
    rewritten = true;
    if (reason) rewriteReasons.push(reason);
  }
  if (!rewritten) return { action: 'allow' };
  const reason = rewriteReasons.length ? { reason: rewriteReasons.join('; ') } : {};
  return input.surface === 'tool_call'
    ? { action: 'rewrite', arguments: args, ...reason }
    : { action: 'rewrite', result, ...reason };
}

export function rulesJudge(rules: Rule[]): Judge {
  return judgeOfRules(validateRules(rules));
}

/** `rulesJudge` of rules already validated (the `judge: { rules }` option, a replacement of them). */
export function judgeOfRules(rules: Rule[]): Judge {
  const compiled = rules.map(compileRule);
  return {
    async evaluate(input) {
      return verdictFor(compiled, input);
    },
  };
}
