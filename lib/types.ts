import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { AuthProvider } from '@modelcontextprotocol/client';
import type { Logger } from './shared/logger';

export type { Logger };

/** MCP's behaviour hints on a tool; the server's word, not a guarantee. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** MCP's own tool shape, as `tools/list` returns it. */
export interface Tool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | {
      type: 'resource';
      resource: { uri: string; text?: string; blob?: string; mimeType?: string; name?: string; description?: string };
    }
  | { type: 'resource_link'; uri: string; name?: string; description?: string; mimeType?: string; size?: number }
  | { type: string; [key: string]: unknown };

/** MCP's own `tools/call` result shape. */
export interface CallToolResult {
  content: ToolContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** an MCP server's `input_required` answer (2026-07-28): the tool did not finish, it asks the person first */
  inputRequired?: InputRequired;
}

/**
 * One question an MCP server embeds in an `input_required` result (2026-07-28): `elicitation/create`, `roots/list`, ...
 */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * A `tools/call` that needs input first (MCP 2026-07-28): the questions by the server's keys, and the state to echo
 * when the tool is called again with the answers. `answered`: answers the Trellis gave itself (`roots/list`), to send
 * back with the person's.
 */
export interface InputRequired {
  inputRequests: Record<string, InputRequest>;
  requestState?: string;
  /** the MCP task that asks (`input_required` while polled): its answers go to `tasks/update`, not a new call */
  taskId?: string;
  answered?: Record<string, unknown>;
}

/** The answers to a tool's `input_required` result, sent with the call made again. */
export interface InputAnswers {
  inputResponses: Record<string, unknown>;
  requestState?: string;
  /** the task that asked: the answers go to its `tasks/update`, and the loop polls it again */
  taskId?: string;
}

/** A tool's `notifications/progress`, as MCP sends it. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallToolOptions {
  signal: AbortSignal;
  /** when tracing is on: the W3C trace context (`traceparent`, `tracestate`) for the request's `params._meta` */
  meta?: Record<string, string>;
  /** the client request's headers, for a Trellis that forwards some of them (`trellis.mcp.forwardHeaders`) */
  headers?: IncomingHttpHeaders;
  /** called for each progress notification the tool sends while it runs */
  onProgress?(progress: ToolProgress): void;
  /** the answers to the questions the tool's last result asked (`input_required`): the call is made again with them */
  input?: InputAnswers;
  /** called when the call runs as an MCP task, and again each time its status or status message changes */
  onTask?(task: ToolTask): void;
  /** how long a question a 2025 server asks during the call waits for the person's answer (`input.ttlSec`) */
  inputTtlSec?: number;
}

/** A tool call that runs as an MCP task (`io.modelcontextprotocol/tasks`), as its server last described it. */
export interface ToolTask {
  id: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** server text: shown to the client's stream, and in the admin list only with `captureContent` */
  statusMessage?: string;
}

/** Where tools run. Any object of this shape works as the `trellis` option. */
export interface Trellis {
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult>;
  close?(): Promise<void>;
  /** present on an MCP Trellis: the session id once known (Streamable HTTP), for the `mcp.session.id` span attribute */
  mcpSession?(): string | undefined;
  /**
   * present on a Trellis whose users sign in (`oauth`): the Trellis of the request's user, on a connection of their
   * own; this one itself (whose calls fail) when the request names no user
   */
  forRequest?(req: IncomingMessage): Trellis;
  /**
   * present on a Trellis whose tools run as MCP tasks: ends the task `taskId` (`tasks/cancel`) whose question the
   * person declined or cancelled; a Trellis without it leaves such a task to its server
   */
  cancelTask?(taskId: string, options: { headers?: IncomingHttpHeaders }): Promise<void>;
}

export type HierarchyNode = string | { tool: string; children?: HierarchyNode[] };

export interface BindingMatch {
  model?: string | string[];
  header?: Record<string, string>;
}

/** `{ never: { toolNames } }`: every tool but those named needs approval. */
export type RequireApproval = 'always' | 'never' | { never: { toolNames: string[] } };

/** How a turn reaches the front door: handed to the server that took the request, in memory, or over loopback HTTP. */
export type SelfCallTransport = 'in-process' | 'socket';

/** An MCP server: Streamable HTTP at `url`, or a stdio child started with `command`. */
export type McpServerAddress =
  | { url: string; headers?: Record<string, string>; authProvider?: AuthProvider }
  | { command: string; args?: string[]; env?: Record<string, string> };

export interface EffectiveAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
  [key: string]: unknown;
}

export type JudgeSurface = 'tool_call' | 'context';

export interface JudgeInput {
  surface: JudgeSurface;
  /**
   * set by the loop: the front door the client used (a `WireName`): `chat` (chat completions), `responses` (OpenAI
   * Responses), `messages` (Anthropic)
   */
  wire?: string;
  binding: string;
  tool: string;
  arguments: Record<string, unknown>;
  /**
   * the tool's MCP annotations, MCP's defaults filled in (readOnlyHint false, destructiveHint true unless read-only,
   * ...)
   */
  annotations?: EffectiveAnnotations;
  /**
   * the conversation so far (tool_call surface), in the wire's shape: chat messages, Responses items, Anthropic
   * messages
   */
  messages?: ChatMessage[] | Record<string, unknown>[];
  /** the tool's result text (context surface) */
  result?: string;
  /** a person approved this call (it was handed to the client for approval and came back approved) */
  approved?: boolean;
}

export type Verdict =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'rewrite'; arguments?: Record<string, unknown>; result?: string; reason?: string }
  /** tool_call surface only: a person approves the call (with `arguments` when given) before it runs */
  | { action: 'ask'; reason?: string; arguments?: Record<string, unknown> };

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
