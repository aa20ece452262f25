import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import type { Question } from './input';
import type { ToolOutcome } from '../loop/tool-outcome';
import type { Unanswered } from './refusal';
import { isObject } from '../shared/fields';

/** A person's answer, as MCP's elicitation result has it. */
export type InputAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
/** The schemas compiled so far, by their text: a server asks the same few questions again and again. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  const { $schema: _dialect, ...rest } = schema;
  const text = JSON.stringify(rest);
  let validate = compiled.get(text);
  if (validate === undefined) {
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    validate = ajv.compile(rest);
    compiled.set(text, validate);
  }
  return validate;
}

/**
 * The client's answer to one question (the input tool's result, MCP's `{ action, content }`); a cancel when unreadable.
 */
export function inputAnswerOf(given: unknown): InputAnswer {
  if (!isObject(given)) return { action: 'cancel' };
  if (given.action === 'accept') return { action: 'accept', content: isObject(given.content) ? given.content : {} };
  return { action: given.action === 'decline' ? 'decline' : 'cancel' };
}

/** Why an accepted answer does not fit the form it answers (the field and the problem); undefined when it fits. */
export function misfit(
  question: Question,
  content: Record<string, unknown>,
): Extract<Unanswered, { why: 'invalid_answer' }> | undefined {
  if (question.mode !== 'form') return undefined;
  let validate: ValidateFunction;
  try {
    validate = validatorOf(question.requestedSchema);
  } catch (error) {
    return { why: 'invalid_answer', field: '(schema)', problem: `cannot be checked: ${(error as Error).message}` };
  }
  if (validate(content)) return undefined;
  const [first] = validate.errors ?? [];
  const missing = (first?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
  const field = typeof missing === 'string' ? missing : (first?.instancePath ?? '').replace(/^\//, '') || '(answer)';
  return { why: 'invalid_answer', field, problem: first?.message ?? 'is not valid' };
}

/** What the model reads, in place of the call's result, for a question answered in an earlier request. */
export function earlierInput(tool: string, given: unknown): ToolOutcome {
  const { action } = inputAnswerOf(given);
  if (action === 'accept') return { kind: 'approved_earlier', tool };
  return { kind: 'unanswered', tool, why: action === 'decline' ? 'declined' : 'cancelled' };
}
