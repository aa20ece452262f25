import type { ChatMessage } from '../types';
import type { TurnResult } from '../wire/wire';

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
export function inputMessages(messages: readonly unknown[]): string {
  return JSON.stringify((messages as ChatMessage[]).map((message) => ({ role: message?.role, parts: partsOf(message ?? {}) })));
}

/** `gen_ai.output.messages`: the model's reply in the same JSON, whatever its wire. */
export function outputMessages(reply: TurnResult): string {
  const text: Part[] = reply.text === '' ? [] : [{ type: 'text', content: reply.text }];
  const calls = reply.calls.map((call): Part => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments }));
  return JSON.stringify([{ role: 'assistant', parts: [...text, ...calls], finish_reason: reply.stop ?? 'stop' }]);
}
