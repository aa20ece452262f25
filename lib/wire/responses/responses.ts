import type { LoopTool } from '../../loop/loop-tool';
import type { Response } from 'express';
import type { AnswerIds } from '../../hand-back/answer-ids';
import { decideReply } from '../kit/approval-settle';
import { succeededIn, type HistoryEntry } from '../../trellis/hierarchy';
import type { Reply } from '../../loop/reply';
import { clientToolSearch } from '../../tool-search/client-search';
import type { SearchKind } from '../../tool-search/tool-search-tool';
import { ResponsesConversation, type Chaining } from './conversation';
import { settleApprovals } from './approval';
import { restoreWork } from './continuation';
import { CLIENT_ACTION_NAMES, callsOf, isObject, messageText, type ResponseItem } from './types';
import { responsesReader } from './reader';
import { JsonReply, StreamReply } from './reply';
import type { ReplyOptions, Wire, WireLoop, WireRequest } from '../../loop/wire';
import { openAiApi } from '../kit/openai-api';
import { routePattern } from '../../shared/route-pattern';

export interface ResponsesRequest extends WireRequest {
  input: string | ResponseItem[];
  tools?: unknown;
}

/**
 * A Responses request the loop can serve: an `input` to carry on (a string or a list of items), answered in this
 * request (`background` runs are polled for later: the loop cannot hold them).
 */
function isResponsesRequest(body: unknown): body is ResponsesRequest {
  if (!isObject(body) || body.background === true) return false;
  const { input } = body;
  if (typeof input === 'string') return input !== '';
  return Array.isArray(input) && input.length > 0 && input.every(isObject);
}

const inputItems = (input: string | ResponseItem[]): ResponseItem[] =>
  typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;

/** The upstream keeps the conversation (`previous_response_id`, `conversation`): turns then send only what is new. */
function chainingOf(body: ResponsesRequest): Chaining {
  if (typeof body.previous_response_id === 'string') return 'previous_response_id';
  return body.conversation !== undefined && body.conversation !== null ? 'conversation' : 'whole';
}

/**
 * A follow-up chained on a loop's answer is chained on the upstream's last reply of that loop: the upstream knows only
 * its own ids.
 */
function chainedOnUpstream(body: ResponsesRequest, answerIds: AnswerIds): ResponsesRequest {
  const chainedOn = body.previous_response_id;
  if (typeof chainedOn !== 'string') return body;
  const upstream = answerIds.upstreamOf(chainedOn);
  return upstream === chainedOn ? body : { ...body, previous_response_id: upstream };
}

/**
 * MCP's definition as a Responses function tool. Not `strict`: Responses' default, strict, refuses any schema that
 * does not list every property as required and close `additionalProperties`, which most tools' schemas do not.
 */
const responsesTool = (fn: LoopTool) => ({
  type: 'function',
  name: fn.name,
  ...(fn.description === undefined ? {} : { description: fn.description }),
  parameters: fn.parameters,
  strict: false,
});

/** Responses' own tool search, `{ "type": "tool_search" }` (what Codex sends): words, as the loop's BM25 reads them. */
const searchKindOf = (tool: Record<string, unknown>): SearchKind | undefined =>
  tool.type === 'tool_search' ? 'bm25' : undefined;

/** A function tool held back (`defer_loading`) as the search reads it; any other kind of tool is none. */
const functionAsTool = ({ type, name, description, parameters }: Record<string, unknown>): LoopTool | undefined =>
  type === 'function' && typeof name === 'string'
    ? {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        parameters: isObject(parameters) ? parameters : { type: 'object' },
      }
    : undefined;

/**
 * The client's tools: its functions by name (the loop's own win a clash; the approval tool is the loop's channel to a
 * person, never the model's), its built-in tools untouched.
 */
function clientTools(tools: unknown, withheld: ReadonlySet<string>): { passed: unknown[]; functions: string[] } {
  const passed = (Array.isArray(tools) ? tools : []).filter(
    (tool) => !(isObject(tool) && tool.type === 'function' && withheld.has(tool.name as string)),
  );
  const functions = passed.flatMap((tool) =>
    isObject(tool) && tool.type === 'function' && typeof tool.name === 'string' ? [tool.name] : [],
  );
  return { passed, functions };
}

function outputTextOf(output: unknown): string {
  if (typeof output === 'string') return output;
  return Array.isArray(output)
    ? output.map((part) => (isObject(part) ? messageText({ content: [part] }) : '')).join('')
    : '';
}

/** A Responses history as the hierarchy reads it: its `function_call`s (all of them first), then their outputs. */
function* responsesHistory(items: readonly unknown[]): Generator<HistoryEntry> {
  const listed = items.filter(isObject);
  for (const call of callsOf(listed)) yield { call: call.id, tool: call.name };
  for (const item of listed)
    if (item.type === 'function_call_output' && typeof item.call_id === 'string')
      yield { answers: item.call_id, text: outputTextOf(item.output) };
}

/** The client's tools (a Responses function tool names itself at its top) declare `name`. */
const declaresTool = (tools: unknown, name: string | undefined): boolean =>
  name !== undefined && Array.isArray(tools) && tools.some((tool) => isObject(tool) && tool.name === name);

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
  succeededIn: (items) => succeededIn(responsesHistory(items)),
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
    const { tools: _replaced, ...rest } = body;
    const fields = {
      ...rest,
      ...(chaining === 'whole' ? { input: history } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      stream: body.stream === true,
    };
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
      conversation: new ResponsesConversation(history, fields, chaining, setup, shape),
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
