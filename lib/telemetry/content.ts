import type { TurnResult, WireCall } from '../loop/turn-result';

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id?: string; name?: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string; response: unknown }
  | { type: string };
interface Message {
  role: unknown;
  parts: Part[];
}
type Item = Record<string, unknown>;

/** The text of a message's content: a string, or the text of its parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

const text = (content: string): Part[] => (content === '' ? [] : [{ type: 'text', content }]);

/** A Messages content block, or a chat / Responses content part (their text is read, whatever its type). */
function blockParts(block: Item): Part[] {
  switch (block?.type) {
    case 'tool_use':
      return [{ type: 'tool_call', id: block.id as string, name: block.name as string, arguments: block.input }];
    case 'tool_result':
      return [{ type: 'tool_call_response', id: block.tool_use_id as string, response: textOf(block.content) }];
    case 'thinking':
      return [{ type: 'reasoning', content: String(block.thinking ?? '') }];
    case 'redacted_thinking':
      return [{ type: 'reasoning' }];
    default:
      return text(textOf([block]));
  }
}

function chatParts(message: Item): Part[] {
  if (message.role === 'tool')
    return [{ type: 'tool_call_response', id: message.tool_call_id as string, response: message.content }];
  const parts = Array.isArray(message.content)
    ? (message.content as Item[]).flatMap(blockParts)
    : text(textOf(message.content));
  for (const call of (message.tool_calls as Item[] | undefined) ?? []) {
    const fn = call.function as Item | undefined;
    parts.push({ type: 'tool_call', id: call.id as string, name: fn?.name as string, arguments: fn?.arguments });
  }
  return parts;
}

/** A Responses input item that is not a message: its calls and outputs, its reasoning, or just its type. */
function itemMessage(item: Item): Message {
  switch (item.type) {
    case 'function_call':
      return {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: item.call_id as string, name: item.name as string, arguments: item.arguments },
        ],
      };
    case 'function_call_output':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: item.call_id as string, response: item.output }],
      };
    case 'reasoning': {
      const summary = textOf(item.summary);
      return {
        role: 'assistant',
        parts: [summary === '' ? { type: 'reasoning' } : { type: 'reasoning', content: summary }],
      };
    }
    default:
      return { role: 'assistant', parts: [{ type: String(item.type) }] };
  }
}

function messageOf(entry: unknown): Message {
  const item = (entry ?? {}) as Item;
  if (item.role === undefined && typeof item.type === 'string') return itemMessage(item);
  return { role: item.role, parts: chatParts(item) };
}

/**
 * `gen_ai.input.messages`: the conversation a turn sends, in the GenAI conventions' role-and-parts JSON, whatever its
 * wire: chat messages, Responses input items, or Messages messages with their content blocks.
 */
export function inputMessages(messages: readonly unknown[]): string {
  return JSON.stringify(messages.map(messageOf));
}

/** `gen_ai.output.messages`: the model's reply in the same JSON, whatever its wire. */
export function outputMessages(reply: TurnResult): string {
  const calls = reply.calls.map((call): Part => ({
    type: 'tool_call',
    id: call.id,
    name: call.name,
    arguments: call.arguments,
  }));
  return JSON.stringify([
    { role: 'assistant', parts: [...text(reply.text), ...calls], finish_reason: reply.stop ?? 'stop' },
  ]);
}

const argumentTexts = new WeakMap<WireCall, string | undefined>();

/**
 * A call's arguments as text (`captureContent`): as the model gave them, or (not a string) serialised once for the
 * call, however many of the span and the loop's record show them.
 */
export function argumentsText(call: WireCall): string | undefined {
  if (typeof call.arguments === 'string') return call.arguments;
  if (!argumentTexts.has(call)) argumentTexts.set(call, JSON.stringify(call.arguments));
  return argumentTexts.get(call);
}
