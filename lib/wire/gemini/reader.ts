import type { Readable } from 'node:stream';
import { withInput } from '../../loop/arguments';
import type { TextSink } from '../../loop/reply';
import { streamedTurn } from '../../loop/turn-stream';
import type { TurnReader, TurnResult } from '../../loop/wire';
import { isObject } from '../../shared/fields';
import { wellFormedReply } from './model-reply';
import type { Counted } from './reply';
import { partsOf } from './request';
import { answerText, streamedReply } from './stream-reader';
import { isCall, type Content, type GenerateContentResponse } from './types';
import { addUsageMetadata, tokenUsage } from './usage';

/**
 * A GenerateContentResponse as the loop reads a turn: its first candidate's content whole, its functionCall parts as
 * calls by their place.
 */
function turnOf(reply: GenerateContentResponse, model: string): TurnResult<Content> {
  const [candidate] = reply.candidates ?? [];
  const content: Content = {
    role: 'model',
    ...(isObject(candidate?.content) ? candidate.content : {}),
    parts: partsOf(candidate?.content),
  };
  return {
    text: content.parts.map(answerText).join(''),
    calls: content.parts.flatMap((part, index) => {
      if (!isCall(part)) return [];
      const args = part.functionCall.args ?? {};
      const { id, name } = part.functionCall;
      return [withInput({ id: typeof id === 'string' ? id : '', name, arguments: JSON.stringify(args), index }, args)];
    }),
    output: content,
    usage: tokenUsage(reply.usageMetadata),
    // the client's answer repeats it as its finishReason, an enum string: a reply's number or object is none
    stop: typeof candidate?.finishReason === 'string' ? candidate.finishReason : null,
    id: typeof reply.responseId === 'string' ? reply.responseId : '',
    model: typeof reply.modelVersion === 'string' ? reply.modelVersion : model,
    reply,
  };
}

/**
 * Gemini's replies, for one loop: one GenerateContentResponse, or its SSE chunks put back together; each turn's
 * usageMetadata added to what the loop has `counted`, its model the path's `model` where the reply names none.
 */
export function geminiReader(model: string, counted: Counted): TurnReader<Content> {
  const read = (reply: GenerateContentResponse) => {
    counted.usage = addUsageMetadata(counted.usage, reply.usageMetadata);
    return turnOf(reply, model);
  };
  return {
    json: (reply) => read(wellFormedReply(reply)),
    stream: async (upstream: Readable, onText: TextSink, maxBytes: number) =>
      read(await streamedTurn(upstream, onText, maxBytes, streamedReply)),
  };
}
