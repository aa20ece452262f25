import type { WireName } from '../wire/wires';

export type Body = Record<string, unknown>;

/** A tool call the model makes: the tool's name and its arguments (an object, or its JSON as the model wrote it). */
export interface ToolCallStep {
  id?: string;
  name: string;
  arguments?: Record<string, unknown> | string;
}

/** One turn of the script, as the model answers it on every wire. */
export interface ScriptedTurn {
  content?: string;
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  /** the tokens this turn reports (default 10 in, 5 out) */
  usage?: { inputTokens: number; outputTokens: number };
}

/** One server-sent event: its `event:` name where the wire names them, and its data. */
export interface SseFrame {
  event?: string;
  data: string;
}

/** What the scripted model knows of one wire: how to read a request and how to answer it (its routes: the wire's). */
export interface ScriptedWire {
  name: WireName;
  /** the path asks for a stream (Gemini's `:streamGenerateContent`), whatever the body says */
  streams?(path: string): boolean;
  /** why the API would not read this body (its own words), if it would not */
  unreadable(body: Body): string | undefined;
  /** the model turns already in the request's conversation */
  turnOf(body: Body): number;
  /** the request's conversation as the API holds it (with the responses it chains on), oldest first */
  history(body: Body): Body[];
  /** the whole reply (JSON) of a turn; `path`: the request's */
  json(turn: ScriptedTurn, body: Body, turnIndex: number, path?: string): Body;
  /** the same reply streamed */
  events(whole: Body, body: Body): SseFrame[];
  error(status: number, message: string): Body;
}

/** What a turn reports it used: the script's `usage`, else 10 tokens in and 5 out. */
export const usageOf = (turn: ScriptedTurn): { inputTokens: number; outputTokens: number } =>
  turn.usage ?? { inputTokens: 10, outputTokens: 5 };

let counter = 0;

/** A new number for an id: ids stay unique across servers and runs of one process. */
export const nextId = (): number => ++counter;

/** The assistant messages in a list of messages (chat completions, Messages). */
export const assistantTurns = (messages: Body[]): number =>
  messages.filter((message) => message.role === 'assistant').length;
