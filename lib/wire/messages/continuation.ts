import { carryWork, reopenCarried, tokenAt, type Reopened } from '../../hand-back/continuation';
import { elidedResult, toolUseNames } from './elision';
import { blocksOf, type MessageParam } from './request';
import type { ContentBlock } from './types';
import type { HandBacks, LoopHandBacks, WireCall } from '../../loop/wire';

const firstToolUse = (message: MessageParam): ContentBlock | undefined =>
  message.role === 'assistant' ? blocksOf(message.content).find((block) => block.type === 'tool_use') : undefined;

/** The user message with every tool_result in it replaced by a placeholder naming the tool and the result's size. */
const elidedMessage = (message: MessageParam, names: ReadonlyMap<unknown, unknown>): MessageParam => ({
  ...message,
  content: blocksOf(message.content).map((block) =>
    block.type === 'tool_result' ? elidedResult(block, names) : block,
  ),
});

export interface MessagesContinued extends Reopened {
  messages: MessageParam[];
}

/**
 * The client's calls as handed back, the first one's id carrying a sealed record of the loop's earlier turns AND the
 * handed-back assistant message as the model wrote it (thinking blocks and signatures whole). The client's follow-up
 * sends the id back; the record then takes the place of the client's copy of that message.
 */
export function carryOn(
  handBacks: LoopHandBacks,
  own: MessageParam[],
  last: MessageParam,
  calls: WireCall[],
): WireCall[] {
  const names = toolUseNames(own);
  return carryWork(
    handBacks,
    calls,
    [...own],
    (message) => (message.role === 'user' ? elidedMessage(message, names) : undefined),
    last,
  );
}

/** The client's messages with each carried record in place of the message that carries it, every id the model's own. */
export function restoreWork(handBacks: HandBacks, messages: readonly MessageParam[]): MessagesContinued | undefined {
  const carried = reopenCarried(handBacks, messages, (message) => firstToolUse(message)?.id);
  if (!carried) return undefined;
  const { carriers, workAt, reopened } = carried;
  const ids = new Map<string, string>();
  const restored: MessageParam[] = [];
  messages.forEach((message, i) => {
    const id = carriers[i];
    if (id !== undefined) ids.set(id, id.slice(0, tokenAt(id)));
    const work = workAt.get(i);
    if (work) restored.push(...work);
    else restored.push(withModelIds(message, ids));
  });
  return { messages: restored, ...reopened };
}

/** A message with every tool_use id and tool_result reference that carries a token cut back to the model's id. */
function withModelIds(message: MessageParam, ids: Map<string, string>): MessageParam {
  if (!Array.isArray(message.content)) return message;
  const content = blocksOf(message.content).map((block) => {
    if (block.type === 'tool_use' && tokenAt(block.id) >= 0) {
      const id = block.id as string;
      ids.set(id, id.slice(0, tokenAt(id)));
      return { ...block, id: ids.get(id) };
    }
    if (block.type === 'tool_result' && ids.has(block.tool_use_id as string))
      return { ...block, tool_use_id: ids.get(block.tool_use_id as string) };
    return block;
  });
  return { ...message, content };
}
