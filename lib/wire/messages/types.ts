/** Anthropic Messages shapes as the loop reads them: every field it does not name is kept as it came. */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

export interface ToolUseBlock extends ContentBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface MessagesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [key: string]: unknown;
}

/** One Message, as the API answers `stream: false` and as a stream's events put it back together. */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage?: MessagesUsage;
  [key: string]: unknown;
}

/** A stream event of a content block the client may see (every block but the model's `tool_use`). */
export type BlockEvent =
  | { type: 'content_block_start'; index: number; content_block: ContentBlock }
  | { type: 'content_block_delta'; index: number; delta: { type: string; [key: string]: unknown } }
  | { type: 'content_block_stop'; index: number };

export const isToolUse = (block: ContentBlock): block is ToolUseBlock => block.type === 'tool_use';
