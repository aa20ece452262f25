import type { ChatCompletion, ChatUsage, ToolCall } from './types';
import { deltaBytes, entryIndex, excerpt, MAX_STREAMED_ENTRIES, mergeDelta } from '../../shared/deltas';
import { isObject, type Fields } from '../../shared/fields';
import { HeldBytes } from '../../shared/held-bytes';
import type { TextSink } from '../../loop/reply';
import { SseEvents, sseJson } from '../kit/sse';

interface Chunk {
  id?: unknown;
  created?: unknown;
  model?: unknown;
  choices?: unknown;
  usage?: ChatUsage | null;
  error?: { message?: unknown };
}

function parseChunk(data: string): Chunk {
  const chunk = sseJson(data) as Chunk;
  const { error } = chunk;
  if (error)
    throw new Error(
      'the model stream sent an error: ' +
        (typeof error.message === 'string' ? error.message : excerpt(JSON.stringify(error))),
    );
  return chunk;
}

function nameOf(delta: Fields): string | undefined {
  const name = isObject(delta.function) ? delta.function.name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** One streamed tool call as it grows: the model's own fields, its id and name set once, its arguments appended. */
class StreamedCall {
  readonly call: Fields & { id: string; type: string; function: Fields & { name: string; arguments: unknown } } = {
    id: '',
    type: 'function',
    function: { name: '', arguments: '' },
  };
  private typed = false;

  /**
   * whether a delta with this id (and, without an index, this name) starts another call rather than adding to this one
   */
  startedBy(id: string | undefined, name: string | undefined): boolean {
    if (id !== undefined && this.call.id !== '' && id !== this.call.id) return true;
    return name !== undefined && this.call.function.name !== '';
  }

  add(delta: Fields): void {
    const { index: _placed, id, type, function: fn, ...rest } = delta;
    mergeDelta(this.call, rest);
    if (typeof id === 'string' && this.call.id === '') this.call.id = id;
    if (typeof type === 'string' && !this.typed) [this.call.type, this.typed] = [type, true];
    if (!isObject(fn)) return;
    const { name, arguments: args, ...more } = fn;
    mergeDelta(this.call.function, more);
    if (typeof name === 'string' && this.call.function.name === '') this.call.function.name = name;
    const { arguments: before } = this.call.function;
    if (typeof args === 'string') this.call.function.arguments = typeof before === 'string' ? before + args : args;
    else if (args !== undefined && args !== null) this.call.function.arguments = args;
  }
}

/**
 * One streamed reply put back together: the model's message with every field its deltas carried (text in order,
 * other fields by the delta convention) and its tool calls. A call delta with an `index` adds to the call at that
 * index, unless it names another id (one call never changes its id). Without an index (Gemini, Mistral: each call
 * whole in its own delta, ids that may be empty or repeated) a delta adds to the call before unless it starts
 * another: another id, or a name where the call before has one.
 */
class StreamedReply {
  private id = '';
  private created = 0;
  private model = '';
  private content?: string;
  private readonly fields: Fields = {};
  private readonly calls: StreamedCall[] = [];
  private readonly atIndex = new Map<number, StreamedCall>();
  private finishReason: string | null = null;
  private usage?: ChatUsage;
  private sawChoice = false;

  /** a promise when `onText` asks to wait before the next chunk is read; `held` counts what the message keeps of it */
  add(chunk: Chunk, onText: TextSink, held: HeldBytes): Promise<void> | void {
    if (typeof chunk.id === 'string') this.id ||= chunk.id;
    if (typeof chunk.created === 'number') this.created ||= chunk.created;
    if (typeof chunk.model === 'string') this.model ||= chunk.model;
    if (isObject(chunk.usage)) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices)
      ? (chunk.choices as unknown[]).find((candidate) => isObject(candidate) && (candidate.index ?? 0) === 0)
      : undefined;
    if (!isObject(choice)) return;
    this.sawChoice = true;
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    if (!isObject(choice.delta)) return;
    const { content, tool_calls: calls, role: _assistant, ...rest } = choice.delta;
    held.add(deltaBytes(content) + deltaBytes(calls) + deltaBytes(rest));
    mergeDelta(this.fields, rest);
    if (Array.isArray(calls)) calls.forEach((delta) => isObject(delta) && this.callFor(delta).add(delta));
    else if (calls !== undefined && calls !== null)
      throw new Error(
        `the model stream sent tool_calls that are not a list: ${excerpt(String(JSON.stringify(calls)))}`,
      );
    if (typeof content !== 'string') return;
    this.content = (this.content ?? '') + content;
    if (content !== '') return onText(content);
  }

  private callFor(delta: Fields): StreamedCall {
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    const index =
      delta.index === undefined || delta.index === null ? undefined : entryIndex(delta.index, 'a tool call');
    const known = index === undefined ? this.calls.at(-1) : this.atIndex.get(index);
    if (known && !known.startedBy(id, index === undefined ? nameOf(delta) : undefined)) return known;
    if (this.calls.length >= MAX_STREAMED_ENTRIES)
      throw new Error(`the model stream sent more than ${MAX_STREAMED_ENTRIES} tool calls`);
    const call = new StreamedCall();
    this.calls.push(call);
    if (index !== undefined) this.atIndex.set(index, call);
    return call;
  }

  completion(): ChatCompletion {
    if (!this.sawChoice) throw new Error('the model stream ended without a reply');
    const calls = this.calls.map(({ call }) => call as unknown as ToolCall);
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [
        {
          index: 0,
          message: {
            ...this.fields,
            role: 'assistant',
            content: this.content ?? null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          finish_reason: this.finishReason,
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

/**
 * Reads a `stream: true` chat completion as it arrives, handing each text delta to `onText`, the message it assembles
 * within `held`; a broken stream throws.
 */
export async function streamedReply(
  stream: AsyncIterable<Buffer | string>,
  onText: TextSink,
  held = new HeldBytes(),
): Promise<ChatCompletion> {
  const reply = new StreamedReply();
  const events = new SseEvents(held.maxBytes);
  for await (const part of stream)
    for (const data of events.of(part)) {
      if (data === '[DONE]') return reply.completion();
      // Not reading on while the client catches up: the upstream is held back instead of buffered here.
      const caughtUp = reply.add(parseChunk(data), onText, held);
      if (caughtUp) await caughtUp;
    }
  throw new Error('the model stream ended without [DONE]');
}
