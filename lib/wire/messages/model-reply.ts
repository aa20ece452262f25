import { isObject } from '../../shared/fields';
import type { AnthropicMessage, ContentBlock } from './types';

/** What is wrong with a block the loop must act on: a tool_use needs an id and a name to be run and answered. */
function blockProblem(block: unknown): string | undefined {
  if (!isObject(block) || typeof block.type !== 'string')
    return `a content block is not a typed object: ${JSON.stringify(block)?.slice(0, 80)}`;
  if (block.type === 'tool_use' && (typeof block.id !== 'string' || typeof block.name !== 'string'))
    return `a tool_use block has no string id or name: ${JSON.stringify(block).slice(0, 80)}`;
  return undefined;
}

/**
 * The model's JSON reply in the shape the loop relies on (a Message with a list of typed blocks), every field kept
 * as it came; or an Error naming what is wrong with it (the turn then fails like any failed model call).
 */
export function wellFormedReply(reply: unknown): AnthropicMessage {
  if (!isObject(reply) || reply.type !== 'message' || !Array.isArray(reply.content))
    throw new Error('the reply is not a Message');
  for (const block of reply.content) {
    const problem = blockProblem(block);
    if (problem) throw new Error(`the reply's ${problem}`);
  }
  return { ...(reply as AnthropicMessage), content: (reply.content as ContentBlock[]).map((block) => ({ ...block })) };
}
