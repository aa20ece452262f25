import type { HistoryEntry } from '../../trellis/hierarchy';
import { outcomeImages, toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { budgeted, type TurnSource } from '../kit/context-budget';
import { TurnBody, type TurnRequest } from '../../loop/turn-body';
import { approvalUse } from './approval';
import { TakenIds } from '../../loop/call-id';
import { elision } from './elision';
import { blocksOf, messagesTool, type MessageParam } from './request';
import { isToolUse, type AnthropicMessage, type ContentBlock } from './types';
import type { Conversation, LoopSetup, TurnResult, WireCall } from '../../loop/wire';
import type { LoopTool } from '../../loop/loop-tool';

/** A result's text, with the images the tool returned (`passImages`) as image blocks: a tool_result takes both. */
function resultContent(outcome: ToolOutcome): string | ContentBlock[] {
  const text = toolOutcomeText(outcome);
  const images = outcomeImages(outcome);
  if (images.length === 0) return text;
  return [
    { type: 'text', text },
    ...images.map(({ mimeType, data }) => ({ type: 'image', source: { type: 'base64', media_type: mimeType, data } })),
  ];
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .map((block) => (typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/** A Messages history as the hierarchy reads it: each tool_use, each tool_result (`is_error` a failure). */
export function* historyOf(messages: readonly MessageParam[]): Generator<HistoryEntry> {
  for (const message of messages) {
    for (const block of blocksOf(message.content)) {
      if (block.type === 'tool_use') yield { call: block.id, tool: block.name };
      if (block.type === 'tool_result')
        yield { answers: block.tool_use_id, text: resultText(block.content), failed: block.is_error === true };
    }
  }
}

/**
 * The loop's Messages conversation: the client's messages, then each turn's assistant message (the model's blocks
 * whole, thinking and its signature first, its tool_use blocks only those that run) and one user message with a
 * tool_result per call, in call order (`is_error: true` for every outcome but `ok`).
 */
export class MessagesConversation implements Conversation<AnthropicMessage> {
  readonly items: MessageParam[];
  private readonly body: TurnBody;
  private readonly source: TurnSource<MessageParam>;
  private readonly taken = new TakenIds((message: MessageParam) =>
    blocksOf(message.content).flatMap((block) => (block.type === 'tool_use' ? [block.id as string] : [])),
  );

  constructor(
    private readonly client: MessageParam[],
    fields: Record<string, unknown>,
    private readonly carry: (own: MessageParam[], last: MessageParam, calls: WireCall[]) => WireCall[],
    budget?: Pick<LoopSetup, 'maxContextBytes' | 'stats' | 'logger' | 'loopId'>,
    /**
     * the client's tools that ask the person (approval, input): a hand-back of calls to them alone is the loop's own
     */
    private readonly approvalTool?: string | readonly string[],
    private readonly shape: (tool: LoopTool) => unknown = messagesTool,
  ) {
    this.items = [...client];
    this.body = new TurnBody(fields);
    this.source = budget === undefined ? this.body : budgeted(this.body, elision, client.length, budget);
  }

  /** the loop's own messages so far: what a hand-back carries */
  get own(): MessageParam[] {
    return this.items.slice(this.client.length);
  }

  get history(): readonly MessageParam[] {
    return this.client;
  }

  takenIds(): Set<string> {
    return this.taken.of(this.items);
  }

  addOutput(turn: TurnResult<AnthropicMessage>, kept: WireCall[]): void {
    this.items.push({ role: 'assistant', content: withCalls(turn.output, kept) });
  }

  /** A turn's results join the user message of its other results, when it is the last (an approval's decided call). */
  addOutcomes(kept: WireCall[], outcomes: ToolOutcome[]): void {
    if (kept.length === 0) return;
    const results = kept.map((call, i) => ({
      type: 'tool_result',
      tool_use_id: call.id,
      content: resultContent(outcomes[i]),
      ...(outcomes[i].kind === 'ok' ? {} : { is_error: true }),
    }));
    const last = this.items[this.items.length - 1];
    const joins =
      last?.role === 'user' &&
      Array.isArray(last.content) &&
      last.content.length > 0 &&
      blocksOf(last.content).every((block) => block.type === 'tool_result');
    if (joins) this.items[this.items.length - 1] = { ...last, content: [...blocksOf(last.content), ...results] };
    else this.items.push({ role: 'user', content: results });
  }

  request(): TurnRequest {
    return this.source.request(this.items);
  }

  offer(tools: readonly LoopTool[]): void {
    this.body.appendTo('tools', tools.map(this.shape));
  }

  /**
   * The client's calls, the first one's id carrying the loop's earlier work and the handed-back message as the model
   * sent it; calls to the approval tool are the loop's own message, after the work (the turn's calls and results).
   */
  handBack(turn: TurnResult<AnthropicMessage>, calls: WireCall[]): WireCall[] {
    const asking = [this.approvalTool ?? []].flat();
    const asks = calls.length > 0 && calls.every((call) => asking.includes(call.name));
    return this.carry(
      this.own,
      { role: 'assistant', content: asks ? calls.map(approvalUse) : withCalls(turn.output, calls) },
      calls,
    );
  }
}

/** The model's blocks with only the `kept` tool_use blocks (by their place in the content), under the loop's ids. */
function withCalls(message: AnthropicMessage, kept: readonly WireCall[]): ContentBlock[] {
  const ids = new Map(kept.map((call) => [call.index, call.id]));
  return message.content.flatMap((block, index) => {
    if (!isToolUse(block)) return [block];
    const id = ids.get(index);
    return id === undefined ? [] : [{ ...block, id }];
  });
}
