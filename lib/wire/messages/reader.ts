import type { Readable } from 'node:stream';
import { withInput } from '../../loop/arguments';
import type { TextSink } from '../../loop/reply';
import { streamedTurn } from '../../loop/turn-stream';
import type { TurnReader, TurnResult } from '../../loop/wire';
import { wellFormedReply } from './model-reply';
import type { Shown } from './reply';
import { streamedReply, type BlockSink } from './stream-reader';
import { isToolUse, type AnthropicMessage } from './types';
import { addMessagesUsage, totalTokens } from './usage';

/** A Message as the loop reads a turn: its blocks whole, its tool_use blocks as calls by their place in the content. */
function turnOf(message: AnthropicMessage): TurnResult<AnthropicMessage> {
  const { usage } = message;
  const input =
    (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  return {
    text: message.content
      .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
      .join(''),
    calls: message.content.flatMap((block, index) =>
      isToolUse(block)
        ? [
            withInput(
              { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}), index },
              block.input ?? {},
            ),
          ]
        : [],
    ),
    output: message,
    usage: usage && { input, output: usage.output_tokens ?? 0, total: totalTokens(usage) },
    stop: message.stop_reason,
    id: message.id,
    model: message.model,
    reply: message,
  };
}

/**
 * Messages' replies: one Message, or its event stream read to `message_stop`, each block but the model's tool_use
 * blocks going to `forward` as it arrives (the client's stream: the loop's text sink is not needed). What the
 * client sees of every turn is `shown`: the blocks and the usage summed.
 */
export function messagesReader(shown: Shown, forward: BlockSink): TurnReader<AnthropicMessage> {
  const read = (message: AnthropicMessage) => {
    shown.blocks.push(...message.content.filter((block) => !isToolUse(block)));
    shown.usage = addMessagesUsage(shown.usage, message.usage);
    return turnOf(message);
  };
  return {
    json: (reply) => read(wellFormedReply(reply)),
    stream: async (upstream: Readable, onText: TextSink, maxBytes: number) =>
      read(
        await streamedTurn(upstream, onText, maxBytes, (events, _onText, held) => streamedReply(events, forward, held)),
      ),
  };
}
