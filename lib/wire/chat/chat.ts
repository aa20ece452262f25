import { historyIn } from '../kit/history';
import type { Response } from 'express';
import { succeededIn } from '../../trellis/hierarchy';
import { settleApprovals } from './approval';
import { budgeted, type TurnSource } from '../kit/context-budget';
import { JsonReply } from './reply';
import { callsIn, historyOf } from './model-reply';
import type { Reply } from '../../loop/reply';
import { StreamReply } from './stream-writer';
import { outcomeImages, toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { TurnBody, type TurnRequest } from '../../loop/turn-body';
import type { ChatMessage, ChatTool } from '../../types';
import { carryOn, restoreWork } from './continuation';
import { elision } from './elision';
import { chatReader } from './reader';
import { TakenIds } from '../../loop/call-id';
import {
  type Conversation,
  type LoopSetup,
  type ReplyOptions,
  type TurnResult,
  type Wire,
  type WireCall,
  type WireLoop,
  type WireRequest,
} from '../../loop/wire';
import { openAiApi } from '../kit/openai-api';

export interface ChatRequest extends WireRequest {
  messages: ChatMessage[];
  tools?: unknown;
}

/** A chat request the loop can serve: messages it can carry on, and one answer asked for (a loop cannot give `n`). */
function isChatRequest(body: unknown): body is ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { messages, n } = body as { messages?: unknown; n?: unknown };
  if (n !== undefined && n !== null && n !== 1) return false;
  return (
    Array.isArray(messages) &&
    messages.length > 0 &&
    messages.every((m) => typeof m === 'object' && m !== null && typeof m.role === 'string')
  );
}

function clientFunctions(tools: unknown): ChatTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter((tool): tool is ChatTool => typeof tool?.function?.name === 'string');
}

/**
 * What every turn asks the model: the client's request with the loop's tools (no `tools` key at all when there are
 * none: some upstreams reject an empty list); a streaming client's turns stream too, and report their usage when
 * a token budget counts it.
 */
function turnFields(body: ChatRequest, tools: ChatTool[], countsTokens: boolean): Record<string, unknown> {
  const { tools: _replaced, stream_options: streamOptions, ...rest } = body;
  const withTools = tools.length > 0 ? { ...rest, tools } : rest;
  if (body.stream !== true) return { ...withTools, stream: false };
  const options = countsTokens ? { ...(streamOptions as object | undefined), include_usage: true } : streamOptions;
  return { ...withTools, stream: true, ...(options === undefined ? {} : { stream_options: options }) };
}

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
class ChatConversation implements Conversation<ChatMessage> {
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

  offer(tools: readonly ChatTool[]): void {
    this.body.appendTo('tools', tools);
  }

  handBack(_turn: TurnResult<ChatMessage>, calls: WireCall[]): WireCall[] {
    return carryOn(this.setup.handBacks, calls, this.items.slice(this.client.length));
  }
}

/** OpenAI chat completions (`.../chat/completions`), the seed's wire. */
export const chatWire: Wire<ChatMessage, 'chat'> = {
  name: 'chat',
  path: '/chat/completions',
  accepts: isChatRequest,
  ...openAiApi,
  ...historyIn('messages', restoreWork, settleApprovals),
  succeededIn: (items) => succeededIn(historyOf(items as ChatMessage[])),
  open(request, setup): WireLoop<ChatMessage> {
    const body = request as ChatRequest;
    const offered = new Set(setup.tools.map((tool) => tool.function.name));
    const declared = clientFunctions(body.tools);
    const asks = new Set([setup.approvalTool, setup.inputTool]);
    const theirs = declared.filter((tool) => !offered.has(tool.function.name) && !asks.has(tool.function.name));
    const model = typeof body.model === 'string' ? body.model : '';
    return {
      conversation: new ChatConversation(
        body.messages,
        turnFields(body, [...setup.tools, ...theirs], setup.countsTokens),
        setup,
      ),
      reader: chatReader,
      clientTools: new Set(theirs.map((tool) => tool.function.name)),
      approvalTool: declared.some((tool) => tool.function.name === setup.approvalTool) ? setup.approvalTool : undefined,
      inputTool: declared.some((tool) => tool.function.name === setup.inputTool) ? setup.inputTool : undefined,
      reply(res: Response, options: ReplyOptions): Reply {
        const identity = { id: `chatcmpl-${setup.loopId}`, created: Math.floor(Date.now() / 1000), model };
        if (body.stream !== true) return new JsonReply(res, identity, options.judged);
        const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
        return new StreamReply(res, identity, {
          keepAliveSec: options.keepAliveSec,
          includeUsage,
          signal: options.signal,
        });
      },
    };
  },
};
