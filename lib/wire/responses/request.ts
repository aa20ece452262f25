import type { AnswerIds } from '../../hand-back/answer-ids';
import type { LoopTool } from '../../loop/loop-tool';
import type { WireRequest } from '../../loop/wire';
import type { SearchKind } from '../../tool-search/tool-search-tool';
import type { Chaining } from './conversation';
import { isObject, type ResponseItem } from './types';

export interface ResponsesRequest extends WireRequest {
  input: string | ResponseItem[];
  tools?: unknown;
}

/**
 * A Responses request the loop can serve: an `input` to carry on (a string or a list of items), answered in this
 * request (`background` runs are polled for later: the loop cannot hold them).
 */
export function isResponsesRequest(body: unknown): body is ResponsesRequest {
  if (!isObject(body) || body.background === true) return false;
  const { input } = body;
  if (typeof input === 'string') return input !== '';
  return Array.isArray(input) && input.length > 0 && input.every(isObject);
}

export const inputItems = (input: string | ResponseItem[]): ResponseItem[] =>
  typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;

/** The upstream keeps the conversation (`previous_response_id`, `conversation`): turns then send only what is new. */
export function chainingOf(body: ResponsesRequest): Chaining {
  if (typeof body.previous_response_id === 'string') return 'previous_response_id';
  return body.conversation !== undefined && body.conversation !== null ? 'conversation' : 'whole';
}

/**
 * A follow-up chained on a loop's answer is chained on the upstream's last reply of that loop: the upstream knows only
 * its own ids.
 */
export function chainedOnUpstream(body: ResponsesRequest, answerIds: AnswerIds): ResponsesRequest {
  const chainedOn = body.previous_response_id;
  if (typeof chainedOn !== 'string') return body;
  const upstream = answerIds.upstreamOf(chainedOn);
  return upstream === chainedOn ? body : { ...body, previous_response_id: upstream };
}

/**
 * MCP's definition as a Responses function tool. Not `strict`: Responses' default, strict, refuses any schema that
 * does not list every property as required and close `additionalProperties`, which most tools' schemas do not.
 */
export const responsesTool = (fn: LoopTool) => ({
  type: 'function',
  name: fn.name,
  ...(fn.description === undefined ? {} : { description: fn.description }),
  parameters: fn.parameters,
  strict: false,
});

/** Responses' own tool search, `{ "type": "tool_search" }` (what Codex sends): words, as the loop's BM25 reads them. */
export const searchKindOf = (tool: Record<string, unknown>): SearchKind | undefined =>
  tool.type === 'tool_search' ? 'bm25' : undefined;

/** A function tool held back (`defer_loading`) as the search reads it; any other kind of tool is none. */
export const functionAsTool = ({
  type,
  name,
  description,
  parameters,
}: Record<string, unknown>): LoopTool | undefined =>
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
export function clientTools(tools: unknown, withheld: ReadonlySet<string>): { passed: unknown[]; functions: string[] } {
  const passed = (Array.isArray(tools) ? tools : []).filter(
    (tool) => !(isObject(tool) && tool.type === 'function' && withheld.has(tool.name as string)),
  );
  const functions = passed.flatMap((tool) =>
    isObject(tool) && tool.type === 'function' && typeof tool.name === 'string' ? [tool.name] : [],
  );
  return { passed, functions };
}

/** The client's tools (a Responses function tool names itself at its top) declare `name`. */
export const declaresTool = (tools: unknown, name: string | undefined): boolean =>
  name !== undefined && Array.isArray(tools) && tools.some((tool) => isObject(tool) && tool.name === name);

/**
 * What every turn asks the model: the client's request as sent, with the whole input as items unless the client
 * chains on the upstream's stored state, the loop's tools before the client's own (no `tools` key when there are
 * none).
 */
export function turnFields(body: ResponsesRequest, tools: unknown[], chaining: Chaining, history: ResponseItem[]) {
  const { tools: _replaced, ...rest } = body;
  return {
    ...rest,
    ...(chaining === 'whole' ? { input: history } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    stream: body.stream === true,
  };
}
