import type { ChatCompletion, ChatMessage, ToolCall } from './types';
import { isObject, type Fields } from '../../shared/fields';
import type { WireCall } from '../../loop/turn-result';

/** The tool calls a message of the conversation carries: a client's history may hold anything there. */
export function callsIn(message: ChatMessage): ToolCall[] {
  return Array.isArray(message.tool_calls)
    ? (message.tool_calls as unknown[]).filter(isObject).map((call) => call as unknown as ToolCall)
    : [];
}

/** A call in chat completions' shape, and back. */
export const toolCallOf = (call: WireCall): ToolCall => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.arguments as string },
});
export const wireCallOf = (call: ToolCall, index = 0): WireCall => ({
  id: call.id,
  name: call.function?.name,
  arguments: call.function?.arguments,
  index,
});

const isTextPart = (part: unknown): part is { text: string } =>
  isObject(part) && (part.type === undefined || part.type === 'text') && typeof part.text === 'string';

/**
 * The text of a reply's content: a string, null, or a list of parts (only its text parts: Mistral's thinking parts are
 * not the answer).
 */
export function contentText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every(isObject))
    return content
      .filter(isTextPart)
      .map((part) => part.text)
      .join('');
  throw new Error(`the reply's content is not text: ${JSON.stringify(content)?.slice(0, 80)}`);
}

/** The model's own content, except that a list of text parts only is joined into the one string it says. */
function contentOf(content: unknown): unknown {
  const text = contentText(content);
  return Array.isArray(content) && content.every(isTextPart) ? text : content;
}

/**
 * A call as the loop runs it and sends it back: every field the model gave, with an id only when the model gave
 * a string (else the loop gives one), a name only when it is a string (else the unknown-tool answer), the
 * arguments as given (their check answers anything else).
 */
function callOf(call: Fields): ToolCall {
  const fn = isObject(call.function) ? call.function : {};
  return {
    ...call,
    id: typeof call.id === 'string' ? call.id : '',
    type: typeof call.type === 'string' ? call.type : 'function',
    function: { ...fn, name: typeof fn.name === 'string' ? fn.name : '', arguments: fn.arguments as string },
  } as ToolCall;
}

/**
 * The model's reply in the shape the loop relies on, or an Error naming what is wrong with it (the turn then fails
 * like any failed model call). The message keeps every field the model sent (reasoning, signatures, provider
 * extras), so that it goes back unchanged on the next turn. Entries of `tool_calls` that are not objects are left
 * out (no call, no answer owed), and an empty list with them: providers refuse `tool_calls: []` on the way back.
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
        message: {
          ...rest,
          role: 'assistant',
          content: contentOf(message.content) ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
      },
    ],
  };
}
