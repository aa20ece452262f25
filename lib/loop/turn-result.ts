import type { ChatUsage } from '../types';

/** What the loop reads from a model reply, in no wire's shape. */

/** One tool call as the loop runs it, whatever the wire; `index` is its place among the calls of the model's output. */
export interface WireCall {
  id: string;
  name: string;
  /**
   * a JSON object encoded as a string, as the model gave it (Messages: its `input` object, serialised); checked when it
   * runs
   */
  arguments: unknown;
  index: number;
}

/** Token counts, normalised so that every wire's turns can be summed. */
export interface TokenUsage {
  input: number;
  output: number;
  total: number;
}

/** Token counts as OpenAI's usage shows them: chat completions' answers, and the loop records' view. */
export const chatUsage = (usage: TokenUsage): ChatUsage => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.total,
});

/** One model reply, read: what the loop needs to go on, and the model's output kept whole to send back unchanged. */
export interface TurnResult<Output = unknown> {
  /** the reply's text (a streamed reply's text went to `onText` as it arrived) */
  text: string;
  calls: WireCall[];
  /** what the model produced (a chat message, Responses output items, Messages content blocks), every field kept */
  output: Output;
  usage?: TokenUsage;
  /** the wire's own stop reason (`stop`, `tool_calls`; `completed`; `end_turn`, `tool_use`), null if none */
  stop: string | null;
  id: string;
  model: string;
  /** the reply whole: a JSON answer takes its shape */
  reply: unknown;
}
