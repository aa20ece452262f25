import { elidedContent, type Elision } from '../kit/context-budget';
import type { ChatMessage } from './types';

/** The tool each tool message answers, by its call id, from the assistant messages from `from` on. */
export function toolNames(messages: readonly ChatMessage[], from = 0): Map<unknown, string> {
  const names = new Map<unknown, string>();
  for (let i = from; i < messages.length; i++)
    messages[i].tool_calls?.forEach((call) => names.set(call.id, call.function?.name));
  return names;
}

/**
 * The tool message with its result replaced by a placeholder naming the tool and the result's size (when that is
 * shorter).
 */
export function elide(message: ChatMessage, names: ReadonlyMap<unknown, unknown>): ChatMessage {
  const content = elidedContent(message.content, names.get(message.tool_call_id));
  return content === message.content ? message : { ...message, content: content as string };
}

function lastAssistant(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'assistant') return i;
  return -1;
}

/** Chat completions: each `role: "tool"` message is one result; the latest turn's follow its assistant message. */
export const elision: Elision<ChatMessage> = {
  wire: 'chat',
  names: (messages) => toolNames(messages),
  latest: lastAssistant,
  elide(message, names) {
    if (message.role !== 'tool') return undefined;
    const elided = elide(message, names);
    return elided === message ? undefined : { item: elided, results: 1 };
  },
};
