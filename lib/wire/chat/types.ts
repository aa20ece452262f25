/**
 * Chat completions' shapes. They are public (the judge's context completes a chat completion, and shows it chat
 * messages), so they are declared in lib/types.ts, below the wires, and named here for the wire's own files.
 */
export type { ChatCompletion, ChatMessage, ChatTool, ChatUsage, ToolCall } from '../../types';
