import type { ChatMessage } from './types';
import { carryWork, reopenWork, tokenAt, type Reopened } from '../../hand-back/continuation';
import type { HandBacks, LoopHandBacks } from '../../loop/wire';
import { elide, toolNames } from './elision';

/**
 * What the loop did before it handed back: its tool calls and their results. The text is in the handed-back message;
 * every other field of the model's messages (DeepSeek's `reasoning_content`, OpenRouter's `reasoning_details`, ...)
 * goes back as the model wrote it, since some providers refuse a follow-up without it.
 */
function workOf(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'tool'
      ? { role: 'tool', tool_call_id: message.tool_call_id, content: message.content }
      : { ...message, content: null },
  );
}

const callTokenAt = (call: unknown): number => tokenAt((call as { id?: unknown } | undefined)?.id);

export interface ChatRestored extends Reopened {
  messages: ChatMessage[];
}

/** The calls handed back to the client, the first one's id carrying the loop's own messages (`own`). */
export function carryOn<Call extends { id: string }>(
  handBacks: LoopHandBacks,
  calls: Call[],
  own: readonly ChatMessage[],
): Call[] {
  const work = workOf(own);
  const names = toolNames(work, 0);
  return carryWork(handBacks, calls, work, (message) => (message.role === 'tool' ? elide(message, names) : undefined));
}

/**
 * The client's messages with the carried records put back where they belong, just before each handed-back
 * assistant message, and every call id restored to the model's own; `undefined` when no message carries one.
 * One token per message, on its first call (a token on a later call is ignored), the latest first.
 */
export function restoreWork(handBacks: HandBacks, messages: readonly ChatMessage[]): ChatRestored | undefined {
  const carriers = messages.map((message) =>
    Array.isArray(message.tool_calls) && message.tool_calls.some((call) => callTokenAt(call) >= 0)
      ? message.tool_calls
      : undefined,
  );
  if (!carriers.some(Boolean)) return undefined;
  const latestFirst: number[] = [];
  let onLaterCalls = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = carriers[i];
    if (!calls) continue;
    onLaterCalls += calls.filter((call, at) => at > 0 && callTokenAt(call) >= 0).length;
    if (callTokenAt(calls[0]) >= 0) latestFirst.push(i);
  }
  const { works, reopened } = reopenWork(
    handBacks,
    latestFirst.map((i) => carriers[i]![0].id),
  );
  const workAt = new Map(latestFirst.map((i, n) => [i, works[n] as ChatMessage[] | undefined]));
  return { messages: restoredIds(messages, workAt), ...reopened, ignored: reopened.ignored + onLaterCalls };
}

/** `messages` with each carried work before its message, and every id that carries a token cut back to the model's. */
function restoredIds(
  messages: readonly ChatMessage[],
  works: ReadonlyMap<number, ChatMessage[] | undefined>,
): ChatMessage[] {
  const ids = new Map<string, string>();
  const restored: ChatMessage[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'tool' && typeof message.tool_call_id === 'string' && ids.has(message.tool_call_id)) {
      restored.push({ ...message, tool_call_id: ids.get(message.tool_call_id) });
      return;
    }
    if (!Array.isArray(message.tool_calls)) {
      restored.push(message);
      return;
    }
    restored.push(...(works.get(i) ?? []));
    const calls = message.tool_calls.map((call) => {
      const at = callTokenAt(call);
      if (at < 0) return call;
      ids.set(call.id, call.id.slice(0, at));
      return { ...call, id: call.id.slice(0, at) };
    });
    restored.push({ ...message, tool_calls: calls });
  });
  return restored;
}
