import { excerpt } from '../../shared/deltas';
import { isObject } from '../../shared/fields';
import { HeldBytes } from '../../shared/held-bytes';
import type { TextSink } from '../../loop/reply';
import { SseEvents, sseJson } from '../kit/sse';
import type { ResponseItem } from './types';

const MAX_OUTPUT_ITEMS = 1024;

/** A streamed Response's end event: the Response it carries, and the output items the stream finished before it. */
export interface StreamedResponse {
  response: unknown;
  items: ResponseItem[];
}

/**
 * Reads a `stream: true` Response to its end event, handing each `output_text` delta to `onText`; the text and the
 * finished items are what the turn holds (`held`), the Response at the end one event.
 */
export async function streamedResponse(
  stream: AsyncIterable<Buffer | string>,
  onText: TextSink,
  held = new HeldBytes(),
): Promise<StreamedResponse> {
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
          return { response: event.response, items };
        case 'error':
          throw new Error(
            `the model stream sent an error: ${typeof event.message === 'string' ? event.message : excerpt(data)}`,
          );
      }
    }
  throw new Error('the model stream ended without response.completed');
}
