import { MAX_CONTINUATION_CHARS, MAX_WORK_BYTES, TAG } from '../../loop/continuation';
import { elidedResult, toolUseNames } from './elision';
import { blocksOf, type MessageParam } from './request';
import type { ContentBlock } from './types';
import type { HandBacks, LoopHandBacks, WireCall } from '../../loop/wire';

const tokenAt = (id: unknown): number => (typeof id === 'string' ? id.indexOf(TAG) : -1);

const firstToolUse = (message: MessageParam): ContentBlock | undefined => (message.role === 'assistant' ? blocksOf(message.content).find((block) => block.type === 'tool_use') : undefined);

/** The user message with every tool_result in it replaced by a placeholder naming the tool and the result's size. */
const elidedMessage = (message: MessageParam, names: ReadonlyMap<unknown, unknown>): MessageParam => ({
  ...message,
  content: blocksOf(message.content).map((block) => (block.type === 'tool_result' ? elidedResult(block, names) : block)),
});

export interface MessagesContinued {
  messages: MessageParam[];
  /** the tools the verified tokens say ran well (what the loop's earlier turns did, not what the client says) */
  succeeded: string[];
  /** tokens that did not open (forged, tampered, expired, another binding's or another client's) */
  forged: number;
  /** tokens left unopened: repeats, or past the follow-up's bound of work */
  ignored: number;
}

/**
 * The client's calls as handed back, the first one's id carrying a sealed record of the loop's earlier turns AND the
 * handed-back assistant message as the model wrote it (thinking blocks and signatures whole). The client's follow-up
 * sends the id back; the record then takes the place of the client's copy of that message. Results are elided,
 * oldest first, until the token fits; nothing to carry, or nothing that fits: the calls as they are.
 */
export function carryOnMessages({ continuations, req, binding, succeeded }: LoopHandBacks, own: MessageParam[], last: MessageParam, calls: WireCall[]): WireCall[] {
  const [first, ...rest] = calls;
  if (own.length === 0 || !first) return calls;
  const names = toolUseNames(own);
  const record = [...own, last];
  const ran = [...succeeded];
  const sealed = () => {
    const token = continuations.sealWork(req, binding, first.id, record, ran);
    return token !== undefined && token.length <= MAX_CONTINUATION_CHARS ? token : undefined;
  };
  let token = sealed();
  for (let i = 0; token === undefined && i < own.length; i++) {
    if (own[i].role !== 'user') continue;
    record[i] = elidedMessage(own[i], names);
    token = sealed();
  }
  return token === undefined ? calls : [{ ...first, id: `${first.id}${TAG}${token}` }, ...rest];
}

/** The client's messages with each carried record in place of the message that carries it, every id the model's own. */
export function restoreMessages({ continuations, req, binding }: HandBacks, messages: readonly MessageParam[]): MessagesContinued | undefined {
  if (!messages.some((message) => tokenAt(firstToolUse(message)?.id) >= 0)) return undefined;
  const ids = new Map<string, string>();
  const restored: MessageParam[] = [];
  const succeeded = new Set<string>();
  const seen = new Set<string>();
  let budget = MAX_WORK_BYTES;
  let forged = 0;
  let ignored = 0;
  for (const message of messages) {
    const id = firstToolUse(message)?.id as string | undefined;
    const at = tokenAt(id);
    if (id === undefined || at < 0) {
      restored.push(withModelIds(message, ids));
      continue;
    }
    ids.set(id, id.slice(0, at));
    if (seen.has(id) || budget === 0 || id.length - at - TAG.length > MAX_CONTINUATION_CHARS) {
      ignored++;
      restored.push(withModelIds(message, ids));
      continue;
    }
    seen.add(id);
    const opened = continuations.openWork(req, binding, id.slice(0, at), id.slice(at + TAG.length), budget);
    if ('payload' in opened) {
      budget -= opened.bytes;
      restored.push(...(opened.payload.work as MessageParam[]));
      for (const tool of opened.payload.succeeded) succeeded.add(tool);
      continue;
    }
    if ('failed' in opened && opened.failed === 'too large') {
      budget = 0;
      ignored++;
    } else forged++;
    restored.push(withModelIds(message, ids));
  }
  return { messages: restored, succeeded: [...succeeded], forged, ignored };
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
    if (block.type === 'tool_result' && ids.has(block.tool_use_id as string)) return { ...block, tool_use_id: ids.get(block.tool_use_id as string) };
    return block;
  });
  return { ...message, content };
}
