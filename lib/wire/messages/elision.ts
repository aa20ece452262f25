import { elidedContent, type Elision } from '../kit/context-budget';
import { blocksOf, type MessageParam } from './request';

/**
 * The tool_result block with its content replaced by a placeholder naming the tool and the result's size (when that is
 * shorter).
 */
export function elidedResult(
  block: Record<string, unknown>,
  names: ReadonlyMap<unknown, unknown>,
): Record<string, unknown> {
  const content = elidedContent(block.content, names.get(block.tool_use_id));
  return content === block.content ? block : { ...block, content };
}

/** The tool each tool_use id names, in `messages`. */
export function toolUseNames(messages: readonly MessageParam[]): Map<unknown, unknown> {
  return new Map(
    messages.flatMap((message) =>
      blocksOf(message.content).flatMap((block) =>
        block.type === 'tool_use' ? [[block.id, block.name] as const] : [],
      ),
    ),
  );
}

/**
 * Messages: a user message's tool_result blocks are the results, each elided where it stands, so every tool_use keeps
 * its answer; the latest results (the last message) are what the model is about to read.
 */
export const elision: Elision<MessageParam> = {
  wire: 'messages',
  names: toolUseNames,
  latest: (messages) => messages.length - 1,
  elide(message, names) {
    if (message.role !== 'user' || !Array.isArray(message.content)) return undefined;
    const blocks = message.content as Record<string, unknown>[];
    const content = blocks.map((block) => (block?.type === 'tool_result' ? elidedResult(block, names) : block));
    const results = content.filter((block, i) => block !== blocks[i]).length;
    return results === 0 ? undefined : { item: { ...message, content }, results };
  },
};
