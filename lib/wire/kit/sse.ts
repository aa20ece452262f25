import { excerpt } from '../../shared/deltas';
import { isObject, type Fields } from '../../shared/fields';
import { replyTooLong } from '../../shared/held-bytes';

/**
 * The `data` of each complete event of a server-sent event stream, part by part as the parts arrive (`of`, a
 * synchronous generator: a reader takes a part's events without a promise for each). Comments (`: keep-alive`) and
 * other fields are skipped; multi-line data is joined with "\n"; an event cut off by the end of the stream is never
 * yielded, as the SSE spec says. A line, or an event's data, longer than `maxBytes` throws.
 */
export class SseEvents {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private pendingBytes = 0;
  private carriageReturnPending = false;
  private data: string[] = [];
  private dataBytes = 0;

  constructor(private readonly maxBytes = Infinity) {}

  *of(part: Buffer | string): Generator<string, void, undefined> {
    const text = typeof part === 'string' ? part : this.decoder.decode(part, { stream: true });
    this.pending += text;
    // A long line that arrives in many parts is split once, when its end shows, not scanned again on every part
    // (nor flattened: `pending` is asked nothing until then).
    const mayEndLine = this.carriageReturnPending || text.includes('\n') || text.includes('\r');
    if (text !== '') this.carriageReturnPending = text.endsWith('\r');
    if (!mayEndLine) {
      this.pendingBytes += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      if (this.pendingBytes > this.maxBytes) throw replyTooLong(this.maxBytes);
      return;
    }
    // A trailing "\r" may be the first half of "\r\n": it stays pending until the next part shows. Without any
    // "\r" the line ends are "\n" alone, split without the regular expression.
    const lines = this.pending.includes('\r') ? this.pending.split(/\r\n|\r(?!$)|\n/) : this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    this.pendingBytes = this.pending === '' ? 0 : Buffer.byteLength(this.pending);
    for (const line of lines) {
      if (line === '') {
        const { data } = this;
        this.data = [];
        this.dataBytes = 0;
        if (data.length > 0) yield data.length === 1 ? data[0] : data.join('\n');
      } else if (line === 'data' || line.startsWith('data:')) {
        const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        this.dataBytes += Buffer.byteLength(value);
        if (this.dataBytes > this.maxBytes) throw replyTooLong(this.maxBytes);
        this.data.push(value);
      }
    }
    if (this.pendingBytes > this.maxBytes) throw replyTooLong(this.maxBytes);
  }
}

/** The `data` of each complete event of a server-sent event stream, as the events arrive (`SseEvents`). */
export async function* sseData(stream: AsyncIterable<Buffer | string>, maxBytes = Infinity): AsyncGenerator<string> {
  const events = new SseEvents(maxBytes);
  for await (const part of stream) yield* events.of(part);
}

/** One event's data as the JSON object every wire's events are, else the turn fails showing what came. */
export function sseJson(data: string, what: 'frame' | 'event' = 'frame'): Fields {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) throw new Error(`the model stream sent a malformed ${what}: ${excerpt(data)}`);
  return parsed;
}
