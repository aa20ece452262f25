import type { HistoryEntry } from '../../trellis/hierarchy';
import { budgeted, type TurnSource } from '../kit/context-budget';
import { callsIn } from './model-reply';
import { outcomeImages, toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { TurnBody, type TurnRequest } from '../../loop/turn-body';
import type { ChatMessage } from './types';
import type { LoopTool } from '../../loop/loop-tool';
import { chatFunction } from './request';
import { carryOn } from './continuation';
import { elision } from './elision';
import { TakenIds } from '../../loop/call-id';
import type { Conversation, LoopSetup, TurnResult, WireCall } from '../../loop/wire';

/**
 * Chat Completions' tool messages carry text only, so the images the tools returned (`passImages`) follow them
 * in one user message of image parts, each introduced by the call it came from.
 */
function imageMessage(calls: WireCall[], outcomes: ToolOutcome[]): ChatMessage | undefined {
  const parts = calls.flatMap((call, i) =>
    outcomeImages(outcomes[i]).flatMap(({ mimeType, data }) => [
      { type: 'text', text: `Image returned by '${call.name}' (${call.id}):` },
      { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } },
    ]),
  );
  return parts.length > 0 ? { role: 'user', content: parts } : undefined;
}

/** The loop's chat conversation: the client's messages, then each turn's assistant message and its tool messages. */
export class ChatConversation implements Conversation<ChatMessage> {
  readonly items: ChatMessage[];
  private readonly body: TurnBody;
  private readonly source: TurnSource<ChatMessage>;
  private readonly taken = new TakenIds((message: ChatMessage) => callsIn(message).map((call) => call.id));

  constructor(
    private readonly client: ChatMessage[],
    fields: Record<string, unknown>,
    private readonly setup: LoopSetup,
  ) {
    this.items = [...client];
    this.body = new TurnBody(fields);
    this.source = budgeted(this.body, elision, client.length, setup);
  }

  get history(): readonly ChatMessage[] {
    return this.client;
  }

  takenIds(): Set<string> {
    return this.taken.of(this.items);
  }

  addOutput(turn: TurnResult<ChatMessage>, kept: WireCall[]): void {
    const calls = turn.output.tool_calls ?? [];
    this.items.push({ ...turn.output, tool_calls: kept.map((call) => ({ ...calls[call.index], id: call.id })) });
  }

  addOutcomes(kept: WireCall[], outcomes: ToolOutcome[]): void {
    kept.forEach((call, i) =>
      this.items.push({ role: 'tool', tool_call_id: call.id, content: toolOutcomeText(outcomes[i]) }),
    );
    const images = imageMessage(kept, outcomes);
    if (images) this.items.push(images);
  }

  request(): TurnRequest {
    return this.source.request(this.items);
  }

  offer(tools: readonly LoopTool[]): void {
    this.body.appendTo('tools', tools.map(chatFunction));
  }

  handBack(_turn: TurnResult<ChatMessage>, calls: WireCall[]): WireCall[] {
    return carryOn(this.setup.handBacks, calls, this.items.slice(this.client.length));
  }
}

/** A chat history as the hierarchy reads it: each assistant message's calls, each tool message's answer. */
export function* historyOf(messages: readonly ChatMessage[]): Generator<HistoryEntry> {
  for (const message of messages) {
    for (const call of callsIn(message)) yield { call: call.id, tool: call.function?.name };
    if (message.role === 'tool' && typeof message.tool_call_id === 'string')
      yield { answers: message.tool_call_id, text: typeof message.content === 'string' ? message.content : '' };
  }
}
