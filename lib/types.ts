import type { Request } from 'express';

/** MCP's own tool shape, as `tools/list` returns it. */
export interface Tool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  _meta?: Record<string, unknown>;
}

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: string; [key: string]: unknown };

/** MCP's own `tools/call` result shape. */
export interface CallToolResult {
  content: ToolContent[];
  isError?: boolean;
}

/** Where tools run. Any object of this shape works as the `trellis` option. */
export interface Trellis {
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  /** `meta`, when tracing is on: the W3C trace context (`traceparent`, `tracestate`) for the request's `params._meta` */
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; meta?: Record<string, string> }): Promise<CallToolResult>;
  close?(): Promise<void>;
  /** present on an MCP Trellis: the session id once known (Streamable HTTP), for the `mcp.session.id` span attribute */
  mcpSession?(): string | undefined;
}

export type HierarchyNode = string | { tool: string; children?: HierarchyNode[] };

export interface BindingMatch {
  model?: string | string[];
  header?: Record<string, string>;
}

export interface Binding {
  name: string;
  match: BindingMatch | ((req: Request) => boolean);
  hierarchy: HierarchyNode | HierarchyNode[] | 'from-trellis';
  maxTurns?: number;
  toolTimeoutSec?: number;
  trellis?: TrellisOption;
}

/** An MCP server: Streamable HTTP at `url`, or a stdio child started with `command`. */
export type McpServerAddress =
  | { url: string; headers?: Record<string, string> }
  | { command: string; args?: string[]; env?: Record<string, string> };

export type TrellisOption = Trellis | { mcp: McpServerAddress & { listTtlSec?: number } };

export type JudgeSurface = 'tool_call' | 'context';

export interface JudgeInput {
  surface: JudgeSurface;
  binding: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** the conversation so far (tool_call surface) */
  messages?: ChatMessage[];
  /** the tool's result text (context surface) */
  result?: string;
}

export type Verdict =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'rewrite'; arguments?: Record<string, unknown>; result?: string; reason?: string };

export interface JudgeContext {
  signal: AbortSignal;
  req: Request;
  /** one chat completion through the gateway's own front door, marked internal (no injection, no loop) */
  complete(body: Record<string, unknown>, signal: AbortSignal): Promise<ChatCompletion>;
}

export interface Judge {
  evaluate(input: JudgeInput, context: JudgeContext): Promise<Verdict>;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [key: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: ChatMessage; finish_reason: string | null; [key: string]: unknown }[];
  usage?: ChatUsage;
  [key: string]: unknown;
}

export interface Logger {
  error(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  debug(message: string, meta?: Record<string, unknown>): unknown;
  isLevelEnabled?(level: string): boolean;
}
