import type { ChatMessage, ChatTool } from './types';
import type { LoopTool } from '../../loop/loop-tool';
import type { WireRequest } from '../../loop/wire';

export interface ChatRequest extends WireRequest {
  messages: ChatMessage[];
  tools?: unknown;
}

/** A chat request the loop can serve: messages it can carry on, and one answer asked for (a loop cannot give `n`). */
export function isChatRequest(body: unknown): body is ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { messages, n } = body as { messages?: unknown; n?: unknown };
  if (n !== undefined && n !== null && n !== 1) return false;
  return (
    Array.isArray(messages) &&
    messages.length > 0 &&
    messages.every((m) => typeof m === 'object' && m !== null && typeof m.role === 'string')
  );
}

/** A tool the loop offers as a chat function (its name, description and parameters are the function's). */
export const chatFunction = (tool: LoopTool): ChatTool => ({ type: 'function', function: tool });

export function clientFunctions(tools: unknown): ChatTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter((tool): tool is ChatTool => typeof tool?.function?.name === 'string');
}

/**
 * What every turn asks the model: the client's request with the loop's tools (no `tools` key at all when there are
 * none: some upstreams reject an empty list); a streaming client's turns stream too, and report their usage when
 * a token budget counts it.
 */
export function turnFields(body: ChatRequest, tools: ChatTool[], countsTokens: boolean): Record<string, unknown> {
  const { tools: _replaced, stream_options: streamOptions, ...rest } = body;
  const withTools = tools.length > 0 ? { ...rest, tools } : rest;
  if (body.stream !== true) return { ...withTools, stream: false };
  const options = countsTokens ? { ...(streamOptions as object | undefined), include_usage: true } : streamOptions;
  return { ...withTools, stream: true, ...(options === undefined ? {} : { stream_options: options }) };
}
