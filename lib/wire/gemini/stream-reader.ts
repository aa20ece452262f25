import { deltaBytes, excerpt } from '../../shared/deltas';
import { isObject } from '../../shared/fields';
import type { HeldBytes } from '../../shared/held-bytes';
import type { TextSink } from '../../loop/reply';
import { SseEvents, sseJson } from '../kit/sse';
import { checkedParts } from './model-reply';
import type { Candidate, GenerateContentResponse, Part } from './types';

/** A text part the next one may join: text alone (a thought summary too), no signature, no other field. */
const plainText = (part: Part): boolean =>
  typeof part.text === 'string' &&
  Object.keys(part).every((key) => key === 'text' || (key === 'thought' && typeof part.thought === 'boolean'));

/** The text a client reads of a part: its text, unless it is a thought summary. */
export const answerText = (part: Part): string =>
  typeof part.text === 'string' && part.thought !== true ? part.text : '';

/**
 * One streamed reply put back together: the parts of every chunk in order, a run of plain text parts joined into one
 * (a part with a signature, or any other field, stays exactly as it came, where it came), the last finishReason,
 * and the last usageMetadata (the API repeats its cumulative counts on every chunk: never added up).
 */
class StreamedReply {
  private readonly parts: Part[] = [];
  private readonly head: GenerateContentResponse = {};
  private readonly candidate: Candidate = {};
  private role: string | undefined;

  constructor(private readonly held: HeldBytes) {}

  get finished(): boolean {
    return typeof this.candidate.finishReason === 'string';
  }

  add(chunk: GenerateContentResponse): string {
    if (isObject(chunk.error)) {
      const { status, message } = chunk.error;
      const what = [status, message].filter((field) => typeof field === 'string').join(': ');
      throw new Error(`the model stream sent an error: ${what || excerpt(JSON.stringify(chunk))}`);
    }
    const { candidates, ...head } = chunk;
    Object.assign(this.head, head);
    const candidate = Array.isArray(candidates) && isObject(candidates[0]) ? (candidates[0] as Candidate) : undefined;
    if (!candidate) return '';
    const { content, ...fields } = candidate;
    Object.assign(this.candidate, fields);
    if (typeof content?.role === 'string') this.role = content.role;
    let text = '';
    for (const part of checkedParts(candidate)) {
      this.held.add(deltaBytes(part));
      text += answerText(part);
      const last = this.parts[this.parts.length - 1];
      // `last` is the reader's own copy: joined in place
      if (last && plainText(last) && plainText(part) && last.thought === part.thought) last.text += part.text as string;
      else this.parts.push({ ...part });
    }
    return text;
  }

  result(): GenerateContentResponse {
    const content = { role: this.role ?? 'model', parts: this.parts };
    return { ...this.head, candidates: [{ ...this.candidate, content }] };
  }
}

/**
 * Reads a `:streamGenerateContent?alt=sse` reply as it arrives, handing the text of every part but thoughts to
 * `onText`; an error chunk, a malformed chunk, a stream that ends without a finishReason, or a part the loop cannot
 * act on throws; what it assembles is kept within `held`.
 */
export async function streamedReply(
  stream: AsyncIterable<Buffer | string>,
  onText: TextSink,
  held: HeldBytes,
): Promise<GenerateContentResponse> {
  const reply = new StreamedReply(held);
  const events = new SseEvents(held.maxBytes);
  for await (const part of stream)
    for (const data of events.of(part)) {
      const text = reply.add(sseJson(data, 'frame') as GenerateContentResponse);
      if (text !== '') {
        const caughtUp = onText(text);
        if (caughtUp) await caughtUp;
      }
    }
  if (!reply.finished) throw new Error('the model stream ended without a finishReason');
  return reply.result();
}
