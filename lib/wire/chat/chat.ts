import type { Response } from 'express';
import { historyIn } from '../kit/history';
import { openAiApi } from '../kit/openai-api';
import { succeededIn } from '../../trellis/hierarchy';
import type { Reply } from '../../loop/reply';
import type { ChatMessage } from './types';
import type { ReplyOptions, Wire, WireLoop } from '../../loop/wire';
import { settleApprovals } from './approval';
import { restoreWork } from './continuation';
import { ChatConversation, historyOf } from './conversation';
import { chatReader } from './reader';
import { JsonReply } from './reply';
import { chatFunction, clientFunctions, isChatRequest, turnFields, type ChatRequest } from './request';
import { StreamReply } from './stream-writer';
import { routePattern } from '../../shared/route-pattern';

/** OpenAI chat completions (`.../chat/completions`), the seed's wire. */
export const chatWire: Wire<ChatMessage, 'chat'> = {
  name: 'chat',
  routes: [routePattern('/chat/completions')],
  accepts: isChatRequest,
  ...openAiApi,
  ...historyIn('messages', restoreWork, settleApprovals),
  succeededIn: (items) => succeededIn(historyOf(items as ChatMessage[])),
  open(request, setup): WireLoop<ChatMessage> {
    const body = request as ChatRequest;
    const offered = new Set(setup.tools.map((tool) => tool.name));
    const declared = clientFunctions(body.tools);
    const asks = new Set([setup.approvalTool, setup.inputTool]);
    const theirs = declared.filter((tool) => !offered.has(tool.function.name) && !asks.has(tool.function.name));
    const model = typeof body.model === 'string' ? body.model : '';
    return {
      conversation: new ChatConversation(
        body.messages,
        turnFields(body, [...setup.tools.map(chatFunction), ...theirs], setup.countsTokens),
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
