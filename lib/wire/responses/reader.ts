import type { Readable } from 'node:stream';
import { isObject, type Fields } from '../../shared/fields';
import type { TextSink } from '../../loop/reply';
import { streamedTurn, type StreamedReader } from '../../loop/turn-stream';
import { streamedResponse } from './stream-reader';
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

/** A streamed Response read to its end event, then as a turn within the read: a turn that fails destroys the stream. */
const streamedTurnOf: StreamedReader<TurnResult<ResponseItem[]>> = async (stream, onText, held) => {
  const { response, items } = await streamedResponse(stream, onText, held);
  return turnOf(response, items);
};

/** OpenAI Responses' replies: one Response object, or its event stream read to `response.completed`. */
export const responsesReader: TurnReader<ResponseItem[]> = {
  json: (body: unknown) => turnOf(body),
  stream: (stream: Readable, onText: TextSink, maxBytes: number) =>
    streamedTurn(stream, onText, maxBytes, streamedTurnOf),
};
