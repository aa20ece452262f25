import Joi from 'joi';
import { option, required, schemaOf, validator } from '../options/declaration';
import { RUN_CODE } from '../code-mode/declarations';
import type { ScriptedTurn } from './wire';

/** What a scripted function entry is asked with: the request, and the model turns already in its conversation. */
export interface ScriptedRequest {
  /** the path as it came, e.g. `/v1/chat/completions` */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** the request's JSON body, parsed */
  body: Record<string, unknown>;
  wire: 'chat' | 'responses' | 'messages' | 'gemini';
  /** the entry's index: the number of model turns already in the request's conversation */
  turn: number;
  /**
   * the conversation as the model holds it, oldest first: the request's `messages` (chat completions, Messages), or
   * on Responses the input and output items of the responses it chains on (`previous_response_id`), then its `input`
   */
  history: Record<string, unknown>[];
}

/** One entry of a script: a turn, or a function of the request that returns one. */
export type ScriptEntry = ScriptedTurn | ((request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>);

const callOptions = {
  name: required<string>({ schema: Joi.string().min(1), hint: "it must be the tool's name, e.g. name: 'clock_now'" }),
  arguments: option<Record<string, unknown>>({
    schema: Joi.object(),
    hint: "it must be the call's arguments as an object, e.g. arguments: { city: 'Paris' }",
  }),
};

const usageOptions = {
  inputTokens: required<number>({
    schema: Joi.number().integer().min(0),
    hint: 'it must be a whole number of tokens, e.g. inputTokens: 120',
  }),
  outputTokens: required<number>({
    schema: Joi.number().integer().min(0),
    hint: 'it must be a whole number of tokens, e.g. outputTokens: 12',
  }),
};

const turnOptions = {
  content: option<string>({
    schema: Joi.string().allow(''),
    hint: "it must be the answer's text, e.g. content: 'It is noon.'",
  }),
  toolCalls: option<ScriptedTurn['toolCalls']>({
    schema: Joi.array().items(schemaOf(callOptions)).min(1),
    hint: "it must be a list of the tool calls the model makes, e.g. toolCalls: [{ name: 'clock_now', arguments: {} }]",
    list: true,
    inner: callOptions,
  }),
  usage: option<ScriptedTurn['usage']>({ schema: schemaOf(usageOptions), inner: usageOptions }),
};

const ENTRY =
  "each entry is { content: 'text' }, { toolCalls: [{ name, arguments }] } (both may be given) " +
  'or a function of the request returning one of those';

const turnSchema = schemaOf(turnOptions).or('content', 'toolCalls');

const turnsOption = {
  turns: required<ScriptEntry[]>({
    schema: Joi.array().items(Joi.alternatives(Joi.function(), turnSchema)).min(1),
    hint:
      `it must be a list of the model's turns: ${ENTRY}; e.g. ` +
      `scriptedModel([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is noon.' }])`,
    list: true,
    inner: turnOptions,
  }),
};

const validTurns = validator<{ turns: ScriptEntry[] }>('scriptedModel', schemaOf(turnsOption), turnsOption);
const validTurn = validator<ScriptedTurn>('scriptedModel', turnSchema.required(), turnOptions);

/** The script, checked: an entry of neither form throws here, naming its index. */
export function checkedScript(turns: ScriptEntry[]): ScriptEntry[] {
  return validTurns({ turns }).turns;
}

/** The turn that answers a request: the entry at its turn index (past the end, the last), a function's called. */
export async function turnFor(script: ScriptEntry[], request: ScriptedRequest): Promise<ScriptedTurn> {
  const index = Math.min(request.turn, script.length - 1);
  const entry = script[index];
  if (typeof entry !== 'function') return entry;
  let returned: ScriptedTurn;
  try {
    returned = await entry(request);
  } catch (error) {
    throw new Error(`entry ${index} (a function) threw: ${(error as Error)?.message ?? String(error)}`);
  }
  try {
    return validTurn(returned);
  } catch (error) {
    throw new Error(
      `entry ${index} (a function) returned ${JSON.stringify(returned) ?? String(returned)}: ${(error as Error).message.replace(/^scriptedModel: /, '')}`,
    );
  }
}

/** A turn that answers with code (for a binding in code mode): one `run_code` call running `code`, on every wire. */
export function runCode(code: string): ScriptedTurn {
  return { toolCalls: [{ name: RUN_CODE, arguments: { code } }] };
}
