import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { onAbort, settledWithin } from '../shared/signals';
import { isObject } from '../shared/fields';
import { HeldBytes } from '../shared/held-bytes';
import { parsedOrUndefined } from '../shared/parsed-json';
import type { TextSink } from './reply';

export const ignoreText = (): undefined => undefined;

/** The reply stream, destroyed with the signal's reason as soon as it aborts, so reading it stops at once. */
export function untilAborted(stream: Readable, signal: AbortSignal): Readable {
  stream.once(
    'close',
    onAbort(signal, () => stream.destroy(signal.reason)),
  );
  return stream;
}

// After `[DONE]` the end of the response is a packet away. Reading it, rather than destroying the stream, puts the
// connection back in the keep-alive pool for the next turn, and lets the front door's own upstream call finish.
const DRAIN_GRACE_MS = 1_000;

async function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return;
  stream.resume();
  const ended = finished(stream);
  if (await settledWithin(ended, DRAIN_GRACE_MS)) return;
  stream.destroy();
  await ended.catch(ignoreText);
}

/** Reads one wire's SSE reply as it arrives, to its end event, keeping at most `held`; a broken stream throws. */
export type StreamedReader<T> = (
  stream: AsyncIterable<Buffer | string>,
  onText: TextSink,
  held: HeldBytes,
) => Promise<T>;

/**
 * A streamed turn read as it arrives by the wire's `read`, holding at most `maxBytes` (`HeldBytes`) however long it
 * runs; the stream is destroyed only when the turn fails.
 */
export async function streamedTurn<T>(
  stream: Readable,
  onText: TextSink,
  maxBytes: number,
  read: StreamedReader<T>,
): Promise<T> {
  try {
    const completion = await read(
      stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>,
      onText,
      new HeldBytes(maxBytes),
    );
    await drain(stream);
    return completion;
  } catch (error) {
    stream.destroy();
    throw error;
  }
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The JSON error body of a failed streaming request, if it is one. */
export async function errorBody(stream: Readable): Promise<unknown> {
  let text = '';
  try {
    for await (const part of stream) {
      text += String(part);
      if (text.length > MAX_ERROR_BODY_BYTES) break;
    }
  } catch {
    return undefined;
  }
  return parsedOrUndefined(text);
}

/**
 * The message of an error body: OpenAI's `{ error: { message } }`, also as the first entry of a list (Gemini's),
 * `{ error: "..." }` (Ollama's) or `{ object: "error", message }` (Mistral's).
 */
export function errorMessage(body: unknown): string | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isObject(first)) return undefined;
  const { error } = first;
  if (typeof error === 'string') return error;
  if (isObject(error)) return typeof error.message === 'string' ? error.message : undefined;
  return typeof first.message === 'string' ? first.message : undefined;
}
