import type { Response } from 'express';
import type { LoopTool } from '../../loop/loop-tool';
import { decideReply } from '../kit/approval-settle';
import { succeededIn } from '../../trellis/hierarchy';
import type { Reply } from '../../loop/reply';
import { clientToolSearch } from '../../tool-search/client-search';
import { historyOf, ResponsesConversation } from './conversation';
import { settleApprovals } from './approval';
import { restoreWork } from './continuation';
import { CLIENT_ACTION_NAMES, isObject, type ResponseItem } from './types';
import { responsesReader } from './reader';
import { JsonReply } from './reply';
import {
  chainedOnUpstream,
  chainingOf,
  clientTools,
  declaresTool,
  functionAsTool,
  inputItems,
  isResponsesRequest,
  responsesTool,
  searchKindOf,
  turnFields,
  type ResponsesRequest,
} from './request';
import { StreamReply } from './stream-writer';
import type { ReplyOptions, Wire, WireLoop } from '../../loop/wire';
import { openAiApi } from '../kit/openai-api';
import { routePattern } from '../../shared/route-pattern';

/** OpenAI Responses (`.../responses`): what the OpenAI Agents SDK and Codex speak. */
export const responsesWire: Wire<ResponseItem[], 'responses'> = {
  name: 'responses',
  routes: [routePattern('/responses')],
  accepts: isResponsesRequest,
  ...openAiApi,
  chainedOn: ({ previous_response_id: id }) => (typeof id === 'string' ? id : undefined),
  restore(body, followUp) {
    const request = chainedOnUpstream(body as ResponsesRequest, followUp.answerIds);
    const restored = Array.isArray(request.input)
      ? restoreWork(followUp, request.input, chainingOf(request) !== 'whole')
      : undefined;
    if (restored) {
      const { input, ...reopened } = restored;
      return { body: { ...request, input }, ...reopened };
    }
    return request === body ? undefined : { body: request, succeeded: [], forged: 0, ignored: 0, loaded: [] };
  },
  succeededIn: (items) => succeededIn(historyOf(items)),
  approvals: {
    settle(reader, req, binding, body) {
      const { input } = body as ResponsesRequest;
      const settled = Array.isArray(input)
        ? settleApprovals(input, chainingOf(body as ResponsesRequest) !== 'whole')
        : undefined;
      return (
        settled && {
          body: { ...body, input: settled.input },
          decisions: settled.live.map((reply) => decideReply(reader, req, binding, reply)),
        }
      );
    },
    withItems: (body, items) => ({ ...body, input: [...items] }),
  },
  open(request, setup): WireLoop<ResponseItem[]> {
    const body = request as ResponsesRequest;
    const own = setup.tools.map(responsesTool);
    const search =
      setup.servesClientSearch && Array.isArray(body.tools)
        ? clientToolSearch(body.tools.filter(isObject), searchKindOf, functionAsTool)
        : undefined;
    const theirs = clientTools(
      search?.passed ?? body.tools,
      new Set([...own.map((tool) => tool.name), setup.approvalTool, ...(setup.inputTool ? [setup.inputTool] : [])]),
    );
    const shape = (tool: LoopTool) => search?.held.get(tool.name)?.loaded ?? responsesTool(tool);
    const tools = [...own, ...theirs.passed];
    const chaining = chainingOf(body);
    const history = inputItems(body.input);
    const id = `resp_${setup.loopId}`;
    const identity = {
      id,
      createdAt: Math.floor(Date.now() / 1000),
      model: typeof body.model === 'string' ? body.model : '',
      binding: setup.handBacks.binding,
      tools: Array.isArray(body.tools) ? body.tools : [],
      // restore chained the body on the upstream's reply: the client's Response names the id it sent
      previousResponseId:
        typeof body.previous_response_id === 'string' ? setup.answerIds.answerOf(body.previous_response_id) : null,
    };
    const answered = (upstreamId: string) => setup.answerIds.remember(id, upstreamId);
    return {
      conversation: new ResponsesConversation(
        history,
        turnFields(body, tools, chaining, history),
        chaining,
        setup,
        shape,
      ),
      reader: responsesReader,
      clientTools: new Set([...theirs.functions, ...CLIENT_ACTION_NAMES]),
      // every Responses client can answer an mcp_approval_request
      approvalTool: setup.approvalTool,
      ...(declaresTool(body.tools, setup.inputTool) ? { inputTool: setup.inputTool } : {}),
      ...(search
        ? { clientSearch: { held: [...search.held.values()].map((held) => held.tool), kind: search.kind } }
        : {}),
      reply(res: Response, options: ReplyOptions): Reply {
        return body.stream === true
          ? new StreamReply(res, identity, options, answered)
          : new JsonReply(res, identity, options.judged, answered);
      },
    };
  },
};
