import { isObject } from '../../shared/fields';
import type { SearchKind } from '../../tool-search/tool-search-tool';
import type { LoopTool } from '../../loop/loop-tool';
import type { WireRequest } from '../../loop/wire';
import type { ContentBlock } from './types';

export interface MessageParam {
  role: string;
  /** a string, or a list of content blocks */
  content: unknown;
  [key: string]: unknown;
}

export interface MessagesRequest extends WireRequest {
  messages: MessageParam[];
  tools?: unknown;
}

/**
 * A tool as the Messages API takes it: `{ name, description, input_schema }` (Anthropic-defined tools add a `type`).
 */
export interface MessagesTool {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A Messages request the loop can serve: a conversation of user and assistant messages it can carry on. */
export function isMessagesRequest(body: unknown): body is MessagesRequest {
  if (!isObject(body) || !Array.isArray(body.messages) || body.messages.length === 0) return false;
  return body.messages.every(
    (message) => isObject(message) && (message.role === 'user' || message.role === 'assistant'),
  );
}

/** The binding's tools (MCP's definitions) as the Messages API takes them. */
export const messagesTool = ({ name, description, parameters }: LoopTool): MessagesTool => ({
  name,
  ...(description === undefined ? {} : { description }),
  input_schema: parameters ?? { type: 'object' },
});

/**
 * The client's own tools, every kind (custom, Anthropic-defined, server tools): they pass through to the upstream as
 * sent.
 */
export function clientTools(tools: unknown): MessagesTool[] {
  return Array.isArray(tools)
    ? tools.filter((tool): tool is MessagesTool => isObject(tool) && typeof tool.name === 'string')
    : [];
}

/**
 * Anthropic's tool search tools (`tool_search_tool_bm25_20251119`, `tool_search_tool_regex_20251119`): how each
 * searches.
 */
export function searchKindOf(tool: MessagesTool): SearchKind | undefined {
  if (typeof tool.type !== 'string') return undefined;
  if (tool.type.startsWith('tool_search_tool_bm25_')) return 'bm25';
  return tool.type.startsWith('tool_search_tool_regex_') ? 'regex' : undefined;
}

/** A custom tool held back (`defer_loading`) as the search reads it; an Anthropic-defined tool is none. */
export const customAsTool = ({
  type,
  name,
  description,
  input_schema: parameters,
}: MessagesTool): LoopTool | undefined =>
  type === undefined || type === 'custom'
    ? {
        name,
        ...(typeof description === 'string' ? { description } : {}),
        parameters: parameters ?? { type: 'object' },
      }
    : undefined;

/** The content blocks of a message, a string content read as one text block. */
export function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content)
    ? content.filter((block): block is ContentBlock => isObject(block) && typeof block.type === 'string')
    : [];
}

/**
 * What every turn asks the model: the client's request (`system`, `thinking`, `max_tokens`, ... as sent) with the
 * loop's tools before the client's own; no `tools` key at all when there are none.
 */
export function turnFields(body: MessagesRequest, tools: unknown[]): Record<string, unknown> {
  const { tools: _replaced, ...rest } = body;
  return { ...(tools.length > 0 ? { ...rest, tools } : rest), stream: body.stream === true };
}
