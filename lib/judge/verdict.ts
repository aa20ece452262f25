import type { JudgeSurface } from '../types';
import { isObject } from '../shared/fields';

function rewriteProblem(verdict: Record<string, unknown>, surface: JudgeSurface): string | undefined {
  if (surface === 'tool_call')
    return isObject(verdict.arguments) ? undefined : 'a tool_call rewrite needs an arguments object';
  return typeof verdict.result === 'string' ? undefined : 'a context rewrite needs a result string';
}

/** What makes `value` unusable as a verdict on `surface`; undefined when it is a valid `Verdict`. */
export function verdictProblem(value: unknown, surface: JudgeSurface): string | undefined {
  if (!isObject(value)) return 'the verdict is not an object';
  switch (value.action) {
    case 'allow':
      return undefined;
    case 'block':
      return typeof value.reason === 'string' && value.reason.trim() !== '' ? undefined : 'a block needs a reason';
    case 'rewrite':
      return rewriteProblem(value, surface);
    case 'ask':
      if (surface !== 'tool_call') return 'ask applies to the tool_call surface: a result cannot wait for approval';
      return value.arguments === undefined || isObject(value.arguments)
        ? undefined
        : "an ask's arguments must be an object";
    default:
      return `action must be allow, block, rewrite or ask, got ${JSON.stringify(value.action) ?? 'none'}`;
  }
}
