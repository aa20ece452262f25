import type { ChatCompletion, ChatUsage, ToolCall } from '../types';
import type { TextSink } from './reply';
import { sseData } from './sse';

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface Chunk {
  id?: string;
  created?: number;
  model?: string;
  choices?: { index?: number; delta?: { content?: unknown; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
  error?: { message?: unknown };
}

function excerpt(data: string): string {
  return data.length > 80 ? `${data.slice(0, 77)}...` : data;
}

function parseChunk(data: string): Chunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    chunk = undefined;
  }
  if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) throw new Error(`the model stream sent a malformed frame: ${excerpt(data)}`);
  const { error } = chunk as Chunk;
  if (error) throw new Error(`the model stream sent an error: ${typeof error.message === 'string' ? error.message : excerpt(JSON.stringify(error))}`);
  return chunk as Chunk;
}

/** One streamed reply put back together: its text in order, its tool calls by their `index`. */
class StreamedReply {
  private id = '';
  private created = 0;
  private model = '';
  private content = '';
  private readonly calls: ToolCall[] = [];
  private finishReason: string | null = null;
  private usage?: ChatUsage;
  private sawChoice = false;

  /** a promise when `onText` asks to wait before the next chunk is read */
  add(chunk: Chunk, onText: TextSink): Promise<void> | void {
    this.id ||= chunk.id ?? '';
    this.created ||= chunk.created ?? 0;
    this.model ||= chunk.model ?? '';
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return;
    this.sawChoice = true;
    const { content, tool_calls: calls } = choice.delta ?? {};
    calls?.forEach((delta, position) => this.addCall(delta, position));
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    if (typeof content !== 'string' || content === '') return;
    this.content += content;
    return onText(content);
  }

  // Names and ids arrive whole in the first delta of a call; some servers repeat them, so they are set, not appended.
  private addCall(delta: ToolCallDelta, position: number): void {
    const call = (this.calls[delta.index ?? position] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
    call.id ||= delta.id ?? '';
    call.function.name ||= delta.function?.name ?? '';
    call.function.arguments += delta.function?.arguments ?? '';
  }

  completion(): ChatCompletion {
    if (!this.sawChoice) throw new Error('the model stream ended without a reply');
    const calls = this.calls.filter(Boolean);
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, message: { role: 'assistant', content: this.content || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, finish_reason: this.finishReason }],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

/** Reads a `stream: true` chat completion as it arrives, handing each text delta to `onText`; a broken stream throws. */
export async function streamedCompletion(stream: AsyncIterable<Buffer | string>, onText: TextSink): Promise<ChatCompletion> {
  const reply = new StreamedReply();
  for await (const data of sseData(stream)) {
    if (data === '[DONE]') return reply.completion();
    // Not reading on while the client catches up: the upstream is held back instead of buffered here.
    const caughtUp = reply.add(parseChunk(data), onText);
    if (caughtUp) await caughtUp;
  }
  throw new Error('the model stream ended without [DONE]');
}
