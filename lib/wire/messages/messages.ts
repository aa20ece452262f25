import type { Readable } from 'node:stream';
import type { Response } from 'express';
import { withInput } from '../../loop/arguments';
import type { TextSink } from '../../loop/reply';
import { streamedTurn } from '../../loop/turn-stream';
import { settleApprovalMessages } from './approval';
import { messagesError } from './error';
import { carryOnMessages, restoreMessages } from './continuation';
import { succeededIn } from '../../trellis/hierarchy';
import { MessagesConversation, messagesHistory } from './conversation';
import { wellFormedMessage } from './model-reply';
import { MessagesJsonReply, MessagesStreamReply, type Shown } from './reply';
import {
  clientTools,
  customAsChat,
  isMessagesRequest,
  messagesTool,
  searchKindOf,
  type MessageParam,
  type MessagesRequest,
} from './request';
import { clientToolSearch } from '../../tool-search/client-search';
import type { ChatTool } from '../../types';
import { streamedMessage } from './stream-reader';
import { isToolUse, type AnthropicMessage } from './types';
import { addMessagesUsage, totalTokens } from './usage';
import type { LoopSetup, ReplyOptions, TurnReader, TurnResult, Wire, WireLoop } from '../../loop/wire';
import { modelInBody } from '../kit/model-in-body';

/** The Messages API version a request goes with when its client named none: the first, which the API still takes. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

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
 * What every turn asks the model: the client's request (`system`, `thinking`, `max_tokens`, ... as sent) with the
 * loop's tools before the client's own; no `tools` key at all when there are none.
 */
function turnFields(body: MessagesRequest, tools: unknown[]): Record<string, unknown> {
  const { tools: _replaced, ...rest } = body;
  return { ...(tools.length > 0 ? { ...rest, tools } : rest), stream: body.stream === true };
}

/** Anthropic Messages (`.../messages`), what Claude Code and the Anthropic SDKs speak. */
export const messagesWire: Wire<AnthropicMessage, 'messages'> = {
  name: 'messages',
  path: '/messages',
  accepts: isMessagesRequest,
  modelOf: modelInBody,
  upstreamHeaders: ['x-api-key', 'anthropic-version', 'anthropic-beta'],
  apiKey: { header: 'x-api-key', defaults: { 'anthropic-version': DEFAULT_ANTHROPIC_VERSION } },
  rateLimited: (message) => messagesError(429, message),
  error: (status, message) => messagesError(status, message),
  restore(request, handBacks) {
    const body = request as MessagesRequest;
    const restored = restoreMessages(handBacks, body.messages);
    if (!restored) return undefined;
    const { messages, ...reopened } = restored;
    return { body: { ...body, messages }, ...reopened };
  },
  succeededIn: (items) => succeededIn(messagesHistory(items as MessageParam[])),
  approvals: {
    settle(reader, req, binding, body) {
      const settled = settleApprovalMessages(reader, req, binding, (body as MessagesRequest).messages);
      return settled && { body: { ...body, messages: settled.messages }, decisions: settled.decisions };
    },
    withItems: (body, items) => ({ ...body, messages: [...items] }),
  },
  open(request, setup: LoopSetup): WireLoop<AnthropicMessage> {
    const body = request as MessagesRequest;
    const own = setup.tools.map(messagesTool);
    const offered = new Set(own.map((tool) => tool.name));
    const declared = clientTools(body.tools);
    const search = setup.servesClientSearch ? clientToolSearch(declared, searchKindOf, customAsChat) : undefined;
    const asking = [setup.approvalTool, ...(setup.inputTool ? [setup.inputTool] : [])];
    const theirs = (search?.passed ?? declared).filter(
      (tool) => !offered.has(tool.name) && !asking.includes(tool.name),
    );
    const shape = (tool: ChatTool) => search?.held.get(tool.function.name)?.loaded ?? messagesTool(tool);
    const shown: Shown = { blocks: [] };
    let stream: MessagesStreamReply | undefined;
    const read = (message: AnthropicMessage) => {
      shown.blocks.push(...message.content.filter((block) => !isToolUse(block)));
      shown.usage = addMessagesUsage(shown.usage, message.usage);
      return turnOf(message);
    };
    const reader: TurnReader<AnthropicMessage> = {
      json: (reply) => read(wellFormedMessage(reply)),
      // The blocks go to the client's stream as they arrive, so the loop's text sink is not needed.
      stream: async (upstream: Readable, onText: TextSink, maxBytes: number) =>
        read(
          await streamedTurn(upstream, onText, maxBytes, (events, _onText, held) =>
            streamedMessage(events, (event) => stream?.writer.forward(event), held),
          ),
        ),
    };
    const identity = { id: `msg_${setup.loopId}`, model: typeof body.model === 'string' ? body.model : '' };
    return {
      conversation: new MessagesConversation(
        body.messages,
        turnFields(body, [...own, ...theirs]),
        (work, last, calls) => carryOnMessages(setup.handBacks, work, last, calls),
        setup,
        asking,
        shape,
      ),
      reader,
      clientTools: new Set(theirs.map((tool) => tool.name)),
      approvalTool: declared.some((tool) => tool.name === setup.approvalTool) ? setup.approvalTool : undefined,
      inputTool: declared.some((tool) => tool.name === setup.inputTool) ? setup.inputTool : undefined,
      ...(search
        ? { clientSearch: { held: [...search.held.values()].map((tool) => tool.chat), kind: search.kind } }
        : {}),
      reply(res: Response, options: ReplyOptions) {
        if (body.stream !== true) return new MessagesJsonReply(res, identity, shown, options.judged);
        stream = new MessagesStreamReply(res, identity, shown, {
          keepAliveSec: options.keepAliveSec,
          signal: options.signal,
        });
        return stream;
      },
    };
  },
};
