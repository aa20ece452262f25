import { excerpt, isObject, type Fields } from './deltas';
import { replyTooLong } from './held-bytes';

/**
 * The `data` of each complete event of a server-sent event stream, as the events arrive. Comments
 * (`: keep-alive`) and other fields are skipped; multi-line data is joined with "\n"; an event cut off by the end
 * of the stream is dropped, as the SSE spec says. A line, or an event's data, longer than `maxBytes` throws.
 */
export async function* sseData(stream: AsyncIterable<Buffer | string>, maxBytes = Infinity): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  let pendingBytes = 0;
  let carriageReturnPending = false;
  let data: string[] = [];
  let dataBytes = 0;
  for await (const part of stream) {
    const text = typeof part === 'string' ? part : decoder.decode(part, { stream: true });
    pending += text;
    // A long line that arrives in many parts is split once, when its end shows, not scanned again on every part
    // (nor flattened: `pending` is asked nothing until then).
    const mayEndLine = carriageReturnPending || /[\r\n]/.test(text);
    if (text !== '') carriageReturnPending = text.endsWith('\r');
    if (!mayEndLine) {
      pendingBytes += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      if (pendingBytes > maxBytes) throw replyTooLong(maxBytes);
      continue;
    }
    // A trailing "\r" may be the first half of "\r\n": it stays pending until the next part shows.
    const lines = pending.split(/\r\n|\r(?!$)|\n/);
    pending = lines.pop() ?? '';
    pendingBytes = Buffer.byteLength(pending);
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
        dataBytes = 0;
      } else if (line === 'data' || line.startsWith('data:')) {
        const value = line.slice(5).replace(/^ /, '');
        dataBytes += Buffer.byteLength(value);
        if (dataBytes > maxBytes) throw replyTooLong(maxBytes);
        data.push(value);
      }
    }
    if (pendingBytes > maxBytes) throw replyTooLong(maxBytes);
  }
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
