import type { ChatMessage } from '../types';

type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id?: string; name?: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string; response: unknown };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

function partsOf(message: ChatMessage): Part[] {
  if (message.role === 'tool') return [{ type: 'tool_call_response', id: message.tool_call_id, response: message.content }];
  const text = textOf(message.content);
  const parts: Part[] = text === '' ? [] : [{ type: 'text', content: text }];
  for (const call of message.tool_calls ?? []) parts.push({ type: 'tool_call', id: call.id, name: call.function?.name, arguments: call.function?.arguments });
  return parts;
}

/** `gen_ai.input.messages`: the conversation a turn sends, in the GenAI conventions' role-and-parts JSON. */
export function inputMessages(messages: ChatMessage[]): string {
  return JSON.stringify(messages.map((message) => ({ role: message.role, parts: partsOf(message) })));
}

/** `gen_ai.output.messages`: the model's reply in the same JSON. */
export function outputMessages(message: ChatMessage, finishReason: string | null): string {
  return JSON.stringify([{ role: message.role, parts: partsOf(message), finish_reason: finishReason ?? 'stop' }]);
}
