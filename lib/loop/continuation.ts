import { createHmac, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ChatMessage, ToolCall } from '../types';
import { elide, toolNames } from './context-budget';

/** Between the model's own call id and the token: `<call id>.al1.<payload>.<hmac>`. */
const TAG = '.al1.';
/** A token (payload and signature) is at most this long: it travels twice in the follow-up (call id, tool_call_id). */
export const MAX_CONTINUATION_CHARS = 16 * 1024;
const MAX_WORK_BYTES = 4 * 1024 * 1024;
const SIGNATURE_LENGTH = 43; // base64url of a SHA-256 digest

function signature(key: Buffer, callId: string, payload: string): string {
  return createHmac('sha256', key).update(`agent-loop continuation v1\n${callId}\n${payload}`).digest('base64url');
}

/** What the loop did before it handed back: its tool calls and their results; the text is in the handed-back message. */
function workOf(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'tool' ? { role: 'tool', tool_call_id: message.tool_call_id, content: message.content } : { role: 'assistant', content: null, tool_calls: message.tool_calls },
  );
}

/** The signed token, or `undefined` while it (or the record it unpacks to) is over its bound. */
function sealed(key: Buffer, callId: string, work: ChatMessage[]): string | undefined {
  const json = JSON.stringify(work);
  if (Buffer.byteLength(json) > MAX_WORK_BYTES) return undefined;
  const payload = deflateRawSync(json).toString('base64url');
  const token = `${payload}.${signature(key, callId, payload)}`;
  return token.length > MAX_CONTINUATION_CHARS ? undefined : token;
}

/**
 * The calls handed back to the client, the first one's id carrying a signed, compressed record of the loop's earlier
 * turns, so that the client's follow-up (which sends the id back unchanged) brings them along. Results are elided,
 * oldest first, until the token fits its bound. Nothing to carry, or nothing that fits: the calls as they are.
 */
export function carryWork(key: Buffer, calls: ToolCall[], own: readonly ChatMessage[]): ToolCall[] {
  const [first, ...rest] = calls;
  if (own.length === 0 || typeof first.id !== 'string') return calls;
  const work = workOf(own);
  const names = toolNames(work, 0);
  let token = sealed(key, first.id, work);
  for (let i = 0; token === undefined && i < work.length; i++) {
    const message = work[i];
    if (message.role !== 'tool') continue;
    work[i] = elide(message, names);
    token = sealed(key, first.id, work);
  }
  return token === undefined ? calls : [{ ...first, id: `${first.id}${TAG}${token}` }, ...rest];
}

/** The loop's work carried by a call id, if its signature holds; `undefined` for a token that does not verify. */
function opened(key: Buffer, callId: string, token: string): ChatMessage[] | undefined {
  const cut = token.lastIndexOf('.');
  const payload = token.slice(0, cut);
  const given = Buffer.from(token.slice(cut + 1));
  if (cut < 0 || token.length > MAX_CONTINUATION_CHARS || given.length !== SIGNATURE_LENGTH) return undefined;
  if (!timingSafeEqual(given, Buffer.from(signature(key, callId, payload)))) return undefined;
  try {
    const work: unknown = JSON.parse(inflateRawSync(Buffer.from(payload, 'base64url'), { maxOutputLength: MAX_WORK_BYTES }).toString('utf8'));
    return Array.isArray(work) ? (work as ChatMessage[]) : undefined;
  } catch {
    return undefined; // signed with a key this process shares, but not a record it wrote
  }
}

export interface Continued {
  messages: ChatMessage[];
  /** tokens that did not verify: removed, their work not restored */
  forged: number;
}

/**
 * The client's messages with every carried record put back where it belongs, just before the handed-back assistant
 * message, and every call id restored to the model's own; `undefined` when no message carries one (the common case).
 */
export function restoreWork(key: Buffer, messages: readonly ChatMessage[]): Continued | undefined {
  const carries = (message: ChatMessage) => Array.isArray(message.tool_calls) && message.tool_calls.some((call) => typeof call?.id === 'string' && call.id.includes(TAG));
  if (!messages.some(carries)) return undefined;
  const ids = new Map<string, string>();
  const restored: ChatMessage[] = [];
  let forged = 0;
  for (const message of messages) {
    if (message.role === 'tool' && typeof message.tool_call_id === 'string' && ids.has(message.tool_call_id)) {
      restored.push({ ...message, tool_call_id: ids.get(message.tool_call_id) });
      continue;
    }
    if (!Array.isArray(message.tool_calls)) {
      restored.push(message);
      continue;
    }
    const calls = message.tool_calls.map((call) => {
      const at = typeof call?.id === 'string' ? call.id.indexOf(TAG) : -1;
      if (at < 0) return call;
      const callId = call.id.slice(0, at);
      ids.set(call.id, callId);
      const work = opened(key, callId, call.id.slice(at + TAG.length));
      if (work) restored.push(...work);
      else forged++;
      return { ...call, id: callId };
    });
    restored.push({ ...message, tool_calls: calls });
  }
  return { messages: restored, forged };
}
