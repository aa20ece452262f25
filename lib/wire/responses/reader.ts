import type { Readable } from 'node:stream';
import { excerpt } from '../../shared/deltas';
import { isObject, type Fields } from '../../shared/fields';
import { HeldBytes } from '../../shared/held-bytes';
import type { TextSink } from '../../loop/reply';
import { SseEvents, sseJson } from '../kit/sse';
import { streamedTurn } from '../../loop/turn-stream';
import { callsOf, outputText, type ResponseItem } from './types';
import type { TokenUsage, TurnReader, TurnResult } from '../../loop/wire';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function usageOf(usage: unknown): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  return { input, output, total: count(usage.total_tokens) || input + output };
}

function failure(response: Fields): string {
  const error = isObject(response.error) ? response.error : undefined;
  return typeof error?.message === 'string' ? error.message : String(response.status);
}

/**
 * A Response read as a turn: its output items whole, its calls by `call_id`; `streamed`: the items a stream finished.
 */
function turnOf(response: unknown, streamed: ResponseItem[] = []): TurnResult<ResponseItem[]> {
  if (!isObject(response) || !(Array.isArray(response.output) || streamed.length > 0))
    throw new Error('the reply is not a Response');
  if (response.status === 'failed') throw new Error(`the response failed: ${failure(response)}`);
  const listed = Array.isArray(response.output) ? response.output.filter(isObject) : [];
  const output = listed.length > 0 ? listed : streamed.filter(isObject);
  return {
    text: outputText(output),
    calls: callsOf(output),
    output,
    usage: usageOf(response.usage),
    stop: typeof response.status === 'string' ? response.status : null,
    id: typeof response.id === 'string' ? response.id : '',
    model: typeof response.model === 'string' ? response.model : '',
    reply: response,
  };
}

const MAX_OUTPUT_ITEMS = 1024;

/**
 * Reads a `stream: true` Response to its end event, handing each `output_text` delta to `onText`; the text and the
 * finished items are what the turn holds (`held`), the Response at the end one event.
 */
async function streamedResponse(
  stream: AsyncIterable<Buffer | string>,
  onText: TextSink,
  held = new HeldBytes(),
): Promise<TurnResult<ResponseItem[]>> {
  const items: ResponseItem[] = [];
  const events = new SseEvents(held.maxBytes);
  for await (const part of stream)
    for (const data of events.of(part)) {
      const event = sseJson(data);
      switch (event.type) {
        case 'response.output_text.delta': {
          if (typeof event.delta !== 'string' || event.delta === '') break;
          held.addText(event.delta);
          // Not reading on while the client catches up: the upstream is held back instead of buffered here.
          const caughtUp = onText(event.delta);
          if (caughtUp) await caughtUp;
          break;
        }
        case 'response.output_item.done': {
          const at = event.output_index;
          if (!Number.isInteger(at) || (at as number) < 0 || (at as number) >= MAX_OUTPUT_ITEMS)
            throw new Error(`the model stream sent an output_index out of bounds: ${excerpt(String(at))}`);
          held.addText(data);
          if (isObject(event.item)) items[at as number] = event.item;
          break;
        }
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          return turnOf(event.response, items);
        case 'error':
          throw new Error(
            `the model stream sent an error: ${typeof event.message === 'string' ? event.message : excerpt(data)}`,
          );
      }
    }
  throw new Error('the model stream ended without response.completed');
}

/** OpenAI Responses' replies: one Response object, or its event stream read to `response.completed`. */
export const responsesReader: TurnReader<ResponseItem[]> = {
  json: (body: unknown) => turnOf(body),
  stream: (stream: Readable, onText: TextSink, maxBytes: number) =>
    streamedTurn(stream, onText, maxBytes, streamedResponse),
};
