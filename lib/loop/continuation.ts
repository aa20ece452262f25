import type { IncomingMessage } from 'node:http';
import { credentialOf, open, seal, type Opened, type Purpose } from '../signed-token';
import type { ChatMessage, ToolCall } from '../types';
import { elide, toolNames } from '../wire/chat/elision';

/** Between the model's own call id and the token: `<call id>.al1.<sealed token>`. */
export const TAG = '.al1.';
/** A token is at most this long: it travels twice in the follow-up (call id, tool_call_id). */
export const MAX_CONTINUATION_CHARS = 16 * 1024;
/** What one loop's record may unpack to; a follow-up gets back at most this much work, all its tokens together. */
export const MAX_WORK_BYTES = 1024 * 1024;
/** How long a hand-back's token opens, by default: the client's own tool (or its user) may take a while. */
export const CONTINUATION_TTL_SEC = 3600;

/**
 * What the loop did before it handed back: its tool calls and their results. The text is in the handed-back message;
 * every other field of the model's messages (DeepSeek's `reasoning_content`, OpenRouter's `reasoning_details`, ...)
 * goes back as the model wrote it, since some providers refuse a follow-up without it.
 */
function workOf(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => (message.role === 'tool' ? { role: 'tool', tool_call_id: message.tool_call_id, content: message.content } : { ...message, content: null }));
}

/**
 * What a hand-back's token holds: the loop's work, and the tools that ran well so far (an `ok` outcome), which unlock
 * their children in the follow-up. The work's text cannot tell: a good result may begin with `tool error:` or `⛔`,
 * and a failed one, elided to fit the token, reads as neither.
 */
export interface SealedWork<T = unknown> {
  work: T[];
  succeeded: string[];
}

/** An authentic token is ours; one of another shape was sealed by an older version of the loop: not restored. */
function sealedWorkOf(opened: Opened<unknown>): Opened<SealedWork> {
  if (!('payload' in opened)) return opened;
  const { work, succeeded } = (opened.payload ?? {}) as Partial<SealedWork>;
  if (!Array.isArray(work) || !Array.isArray(succeeded) || !succeeded.every((tool) => typeof tool === 'string')) return { failed: 'invalid' };
  return { payload: { work, succeeded }, bytes: opened.bytes };
}

/** A token is bound to the binding that wrote it, to the model's call id that carries it and to the client. */
const purpose = (binding: string, callId: string, credential: string | undefined): Purpose => ({ kind: 'continuation', context: `${binding}\n${callId}`, credential });

const tokenAt = (call: unknown): number => (typeof (call as ToolCall | undefined)?.id === 'string' ? (call as ToolCall).id.indexOf(TAG) : -1);

export interface Continued {
  messages: ChatMessage[];
  /** the tools the verified tokens say ran well (what this loop's earlier turns did, not what the client says) */
  succeeded: string[];
  /** tokens that did not open (forged, tampered, expired, another binding's or another client's): work not restored */
  forged: number;
  /** tokens not restored because they repeat one, ride on a later call of a message, or pass the follow-up's bound */
  ignored: number;
}

/**
 * The loop's hand-back token: a sealed record of its earlier turns in the first handed-back call's id, so that the
 * client's follow-up (which sends the id back unchanged) brings them along, for the same binding and client only.
 */
export class Continuations {
  constructor(
    private readonly key: Buffer,
    private readonly ttlSec = CONTINUATION_TTL_SEC,
  ) {}

  /** Another wire's hand-back token: `work` in that wire's shape, or `undefined` while it is over its bound. */
  sealWork(req: IncomingMessage, binding: string, callId: string, work: readonly unknown[], succeeded: Iterable<string>): string | undefined {
    return this.sealed(callId, { work: [...work], succeeded: [...succeeded] }, binding, credentialOf(req));
  }

  /** The work (another wire's) token carries, for this binding and client, at most `maxBytes` of it; else why not. */
  openWork(req: IncomingMessage, binding: string, callId: string, token: string, maxBytes: number): Opened<SealedWork> {
    return sealedWorkOf(open(this.key, purpose(binding, callId, credentialOf(req)), token, maxBytes));
  }

  /** The token, or `undefined` while it (or the record it unpacks to) is over its bound. */
  private sealed(callId: string, sealed: SealedWork, binding: string, credential: string | undefined): string | undefined {
    if (Buffer.byteLength(JSON.stringify(sealed)) > MAX_WORK_BYTES) return undefined;
    const token = seal(this.key, purpose(binding, callId, credential), sealed, Date.now() + this.ttlSec * 1000);
    return token.length > MAX_CONTINUATION_CHARS ? undefined : token;
  }

  /**
   * The calls handed back to the client, the first one's id carrying the token. Results are elided, oldest first,
   * until the token fits its bound. Nothing to carry, or nothing that fits: the calls as they are.
   */
  carry(req: IncomingMessage, binding: string, calls: ToolCall[], own: readonly ChatMessage[], succeeded: Iterable<string>): ToolCall[] {
    const [first, ...rest] = calls;
    if (own.length === 0 || typeof first.id !== 'string') return calls;
    const work = workOf(own);
    const names = toolNames(work, 0);
    const ran = [...succeeded];
    let token = this.sealWork(req, binding, first.id, work, ran);
    for (let i = 0; token === undefined && i < work.length; i++) {
      if (work[i].role !== 'tool') continue;
      work[i] = elide(work[i], names);
      token = this.sealWork(req, binding, first.id, work, ran);
    }
    return token === undefined ? calls : [{ ...first, id: `${first.id}${TAG}${token}` }, ...rest];
  }

  /**
   * The client's messages with the carried records put back where they belong, just before each handed-back
   * assistant message, and every call id restored to the model's own; `undefined` when no message carries one.
   * Bounded by what loops can have written: one token per message (on its first call), each token once, the
   * latest first until `MAX_WORK_BYTES` of work is back; older ones lose their work, not their ids.
   */
  restore(req: IncomingMessage, binding: string, messages: readonly ChatMessage[]): Continued | undefined {
    const carriers = messages.map((message) => (Array.isArray(message.tool_calls) && message.tool_calls.some((call) => tokenAt(call) >= 0) ? message.tool_calls : undefined));
    if (!carriers.some(Boolean)) return undefined;
    const works = new Map<number, ChatMessage[]>();
    const succeeded = new Set<string>();
    const seen = new Set<string>();
    let budget = MAX_WORK_BYTES;
    let forged = 0;
    let ignored = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const calls = carriers[i];
      if (!calls) continue;
      ignored += calls.filter((call, at) => at > 0 && tokenAt(call) >= 0).length;
      const at = tokenAt(calls[0]);
      if (at < 0) continue;
      const { id } = calls[0];
      if (seen.has(id) || budget === 0 || id.length - at - TAG.length > MAX_CONTINUATION_CHARS) {
        ignored++;
        continue;
      }
      seen.add(id);
      const opened = this.openWork(req, binding, id.slice(0, at), id.slice(at + TAG.length), budget);
      if ('payload' in opened) {
        works.set(i, opened.payload.work as ChatMessage[]);
        for (const tool of opened.payload.succeeded) succeeded.add(tool);
        budget -= opened.bytes;
      } else if ('failed' in opened && opened.failed === 'too large') {
        budget = 0;
        ignored++;
      } else forged++;
    }
    return { messages: restoredIds(messages, works), succeeded: [...succeeded], forged, ignored };
  }
}

/** `messages` with each carried work before its message, and every id that carries a token cut back to the model's. */
function restoredIds(messages: readonly ChatMessage[], works: ReadonlyMap<number, ChatMessage[]>): ChatMessage[] {
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
      const at = tokenAt(call);
      if (at < 0) return call;
      ids.set(call.id, call.id.slice(0, at));
      return { ...call, id: call.id.slice(0, at) };
    });
    restored.push({ ...message, tool_calls: calls });
  });
  return restored;
}
