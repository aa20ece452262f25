import type { MessagesIdentity } from './stream-writer';
import type { AnthropicMessage, ContentBlock, MessagesUsage } from './types';

/**
 * The client's JSON answer: ONE Message for the whole loop, shaped like the last reply (its id, model and any field
 * the loop does not know; the id and model only when they are strings, else the loop's own), holding every turn's
 * blocks the client may see and the usage summed over the turns.
 */
export function finalAnswer(
  content: ContentBlock[],
  stopReason: string,
  usage: MessagesUsage | undefined,
  last: AnthropicMessage | undefined,
  identity: MessagesIdentity,
): AnthropicMessage {
  const shape: AnthropicMessage = last ?? {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  return {
    ...shape,
    id: typeof shape.id === 'string' ? shape.id : identity.id,
    type: 'message',
    role: 'assistant',
    model: typeof shape.model === 'string' ? shape.model : identity.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? shape.stop_sequence : null,
    usage: usage ?? { input_tokens: 0, output_tokens: 0 },
  };
}
