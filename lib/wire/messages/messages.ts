import { historyIn } from '../kit/history';
import type { Response } from 'express';
import { settleApprovals } from './approval';
import { messagesError } from './error';
import { carryOn, restoreWork } from './continuation';
import { succeededIn } from '../../trellis/hierarchy';
import { MessagesConversation, historyOf } from './conversation';
import { JsonReply, StreamReply, type Shown } from './reply';
import {
  clientTools,
  customAsTool,
  isMessagesRequest,
  messagesTool,
  searchKindOf,
  turnFields,
  type MessageParam,
  type MessagesRequest,
} from './request';
import { clientToolSearch } from '../../tool-search/client-search';
import type { LoopTool } from '../../loop/loop-tool';
import type { AnthropicMessage } from './types';
import { messagesReader } from './reader';
import type { LoopSetup, ReplyOptions, Wire, WireLoop } from '../../loop/wire';
import { modelInBody } from '../kit/model-in-body';
import { routePattern } from '../../shared/route-pattern';

/** The Messages API version a request goes with when its client named none: the first, which the API still takes. */
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic Messages (`.../messages`), what Claude Code and the Anthropic SDKs speak. */
export const messagesWire: Wire<AnthropicMessage, 'messages'> = {
  name: 'messages',
  routes: [routePattern('/messages')],
  accepts: isMessagesRequest,
  modelOf: modelInBody,
  upstreamHeaders: ['x-api-key', 'anthropic-version', 'anthropic-beta'],
  apiKey: { header: 'x-api-key', defaults: { 'anthropic-version': DEFAULT_ANTHROPIC_VERSION } },
  rateLimited: (message) => messagesError(429, message),
  error: (status, message) => messagesError(status, message),
  ...historyIn('messages', restoreWork, settleApprovals),
  succeededIn: (items) => succeededIn(historyOf(items as MessageParam[])),
  open(request, setup: LoopSetup): WireLoop<AnthropicMessage> {
    const body = request as MessagesRequest;
    const own = setup.tools.map(messagesTool);
    const offered = new Set(own.map((tool) => tool.name));
    const declared = clientTools(body.tools);
    const search = setup.servesClientSearch ? clientToolSearch(declared, searchKindOf, customAsTool) : undefined;
    const asking = [setup.approvalTool, ...(setup.inputTool ? [setup.inputTool] : [])];
    const theirs = (search?.passed ?? declared).filter(
      (tool) => !offered.has(tool.name) && !asking.includes(tool.name),
    );
    const shape = (tool: LoopTool) => search?.held.get(tool.name)?.loaded ?? messagesTool(tool);
    const shown: Shown = { blocks: [] };
    let stream: StreamReply | undefined;
    const reader = messagesReader(shown, (event) => stream?.writer.forward(event));
    const identity = { id: `msg_${setup.loopId}`, model: typeof body.model === 'string' ? body.model : '' };
    return {
      conversation: new MessagesConversation(
        body.messages,
        turnFields(body, [...own, ...theirs]),
        (work, last, calls) => carryOn(setup.handBacks, work, last, calls),
        setup,
        asking,
        shape,
      ),
      reader,
      clientTools: new Set(theirs.map((tool) => tool.name)),
      approvalTool: declared.some((tool) => tool.name === setup.approvalTool) ? setup.approvalTool : undefined,
      inputTool: declared.some((tool) => tool.name === setup.inputTool) ? setup.inputTool : undefined,
      ...(search
        ? { clientSearch: { held: [...search.held.values()].map((held) => held.tool), kind: search.kind } }
        : {}),
      reply(res: Response, options: ReplyOptions) {
        if (body.stream !== true) return new JsonReply(res, identity, shown, options.judged);
        stream = new StreamReply(res, identity, shown, {
          keepAliveSec: options.keepAliveSec,
          signal: options.signal,
        });
        return stream;
      },
    };
  },
};
