import type { Readable } from 'node:stream';
import { contentText, wellFormedReply } from './model-reply';
import type { TextSink } from '../../loop/reply';
import { streamedTurn } from '../../loop/turn-stream';
import { streamedReply } from './stream-reader';
import type { ChatCompletion, ChatMessage } from './types';
import type { TurnReader, TurnResult } from '../../loop/wire';
import { wireCallOf } from './model-reply';

/** A well-formed chat completion as the loop reads a turn: its message whole, its calls by their place in it. */
export function chatTurn(completion: ChatCompletion): TurnResult<ChatMessage> {
  const [choice] = completion.choices;
  const { message } = choice;
  const { usage } = completion;
  return {
    text: contentText(message.content),
    calls: (message.tool_calls ?? []).map(wireCallOf),
    output: message,
    usage: usage && {
      input: usage.prompt_tokens ?? 0,
      output: usage.completion_tokens ?? 0,
      total: usage.total_tokens ?? 0,
    },
    stop: choice.finish_reason,
    id: completion.id,
    model: completion.model,
    reply: completion,
  };
}

/** Chat completions' replies: one JSON completion, or an SSE stream of chunks put back together. */
export const chatReader: TurnReader<ChatMessage> = {
  json: (body: unknown) => chatTurn(wellFormedReply(body)),
  stream: async (stream: Readable, onText: TextSink, maxBytes: number) =>
    chatTurn(wellFormedReply(await streamedTurn(stream, onText, maxBytes, streamedReply))),
};
