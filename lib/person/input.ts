import type { IncomingMessage } from 'node:http';
import type { InputRequired } from '../types';
import type { ToolOutcome } from '../loop/tool-outcome';
import type { Unanswered } from './refusal';
import { INPUT, type AskedInput, type Question } from './question';
import { callIdBefore, SealedIds, type SealedCall } from './sealed-id';
import type { ReplayLog } from '../code-mode/replay-log';
import { isObject } from '../shared/fields';

export type { PendingInput, Question } from './question';

/** What MCP forbids a form to ask for: a form's field that reads as one is never put to the person. */
const SECRET = /pass(word|phrase|code)|secret|token|api[-_ ]?key|credential|private[-_ ]?key/i;
/** The whole of what one question seals (arguments, state, question, answers): longer is not handed to a person. */
export const MAX_QUESTION_BYTES = INPUT.maxBytes;

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** A URL a person may be sent to: https, or http on the person's own machine. */
function safeUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK.test(parsed.hostname));
  } catch {
    return false;
  }
}

/** The first field of a form schema that asks for a secret, by its name, title, description or format. */
function secretField(schema: Record<string, unknown>): string | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {};
  return Object.entries(properties).find(([name, field]) => {
    const { title, description, format } = isObject(field) ? field : {};
    return [name, title, description, format].some((text) => typeof text === 'string' && SECRET.test(text));
  })?.[0];
}

/** One of the server's questions as the person is asked it, or why it is not asked. */
function questionOf(tool: string, method: string, params: Record<string, unknown>): Question | Unanswered {
  if (method !== 'elicitation/create') return { why: 'unsupported', method };
  const message = typeof params.message === 'string' ? params.message : '';
  if (params.mode === 'url') {
    const url = typeof params.url === 'string' ? params.url : '';
    return safeUrl(url) ? { tool, message, mode: 'url', url } : { why: 'insecure_url', url: JSON.stringify(url) };
  }
  const requestedSchema = isObject(params.requestedSchema) ? params.requestedSchema : { type: 'object' };
  const field = secretField(requestedSchema);
  return field === undefined ? { tool, message, mode: 'form', requestedSchema } : { why: 'secret', field };
}

/**
 * What the model's call becomes when its tool asks the person (`input_required`): the questions to hand to the
 * client's input tool, or why it is not asked (a readable refusal, and the tool does not finish). The judge's
 * `context` surface reviews the questions first: they are the server's text, shown to a person.
 */
export async function askedInput(
  loop: { input?: { maxRounds: number } },
  tool: string,
  args: Record<string, unknown>,
  asked: InputRequired,
  round: number,
  review: (text: string) => Promise<{ blocked: false } | { blocked: true; reason: string }>,
): Promise<ToolOutcome> {
  const refused = (why: Unanswered): ToolOutcome => ({ kind: 'unanswered', tool, ...why });
  const maxRounds = loop.input?.maxRounds ?? 0;
  if (loop.input === undefined) return refused({ why: 'cannot_ask' });
  if (round > maxRounds) return refused({ why: 'max_rounds', maxRounds });
  const questions: Record<string, Question> = {};
  for (const [key, { method, params }] of Object.entries(asked.inputRequests)) {
    const question = questionOf(tool, method, params ?? {});
    if ('why' in question) return refused(question);
    questions[key] = question;
  }
  const input: AskedInput = {
    arguments: args,
    questions,
    ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
    ...(asked.taskId === undefined ? {} : { taskId: asked.taskId }),
    answered: asked.answered ?? {},
    round,
  };
  if (Buffer.byteLength(JSON.stringify(input)) > MAX_QUESTION_BYTES)
    return refused({ why: 'too_large', maxBytes: MAX_QUESTION_BYTES });
  const verdict = await review(JSON.stringify(Object.values(questions)));
  if (verdict.blocked) return { kind: 'blocked', reason: verdict.reason };
  return { kind: 'asks', input };
}

/** What a question's token holds: the call waiting, this question, and what goes back with every answer. */
export interface SealedInput extends SealedCall {
  arguments: Record<string, unknown>;
  /** the server's key of this question */
  key: string;
  /** the keys of every question asked with it: all are answered together */
  keys: string[];
  question: Question;
  requestState?: string;
  taskId?: string;
  answered: Record<string, unknown>;
  round: number;
  /** the same for every question asked together, and for no other: a question of another round does not join them */
  group: string;
  /** a nested call of code mode's asked: its program's log */
  program?: ReplayLog;
}

/** The model's call id a question's id (`<call id>.in1.<sealed token>`) names; undefined for another id. */
export const inputCallId = (id: unknown): string | undefined => callIdBefore(INPUT.tag, id);

/** Question tokens, sealed for the client that asked (its credential) and expiring after `input.ttlSec`. */
export class InputTokens extends SealedIds<SealedInput> {
  constructor(key: Buffer, ttlSec: number) {
    super(key, ttlSec, INPUT);
  }

  idFor(req: IncomingMessage, binding: string, sealed: SealedInput): string {
    return this.sealedId(req, binding, sealed);
  }
}
