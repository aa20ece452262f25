import type { ChatCompletion, ChatMessage, ToolCall } from '../types';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tool calls a message of the conversation carries: a client's history may hold anything there. */
export function callsIn(message: ChatMessage): ToolCall[] {
  return Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]).filter(isObject).map((call) => call as unknown as ToolCall) : [];
}

/** Text content as a string: a string, null, or OpenAI's list of `{ type: 'text', text }` parts. */
function textOf(content: unknown): string | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((part) => isObject(part) && typeof part.text === 'string')) return content.map((part) => part.text).join('');
  throw new Error(`the reply's content is not text: ${JSON.stringify(content)?.slice(0, 80)}`);
}

/**
 * A call as the loop runs it: an id only when the model gave a string (else the loop gives one), a name only when
 * it is a string (else the unknown-tool answer), the arguments as given (their check answers anything else).
 */
function callOf(call: Fields): ToolCall {
  const fn = isObject(call.function) ? call.function : {};
  return {
    id: typeof call.id === 'string' ? call.id : '',
    type: 'function',
    function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: fn.arguments as string },
  };
}

/**
 * The model's reply in the shape the loop relies on, or an Error naming what is wrong with it (the turn then fails
 * like any failed model call). Entries of `tool_calls` that are not objects are left out: no call, no answer owed.
 */
export function wellFormedReply(reply: unknown): ChatCompletion {
  const choice: unknown = isObject(reply) && Array.isArray(reply.choices) ? reply.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) throw new Error('the reply is not a chat completion');
  const { message } = choice;
  if (message.tool_calls !== undefined && message.tool_calls !== null && !Array.isArray(message.tool_calls)) {
    throw new Error(`the reply's tool_calls is not a list: ${JSON.stringify(message.tool_calls)?.slice(0, 80)}`);
  }
  const calls = ((message.tool_calls ?? []) as unknown[]).filter(isObject).map(callOf);
  const { tool_calls: _checked, ...rest } = message;
  return {
    ...(reply as ChatCompletion),
    choices: [
      {
        ...choice,
        index: 0,
        message: { ...rest, role: 'assistant', content: textOf(message.content), ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
      },
    ],
  };
}
