import type { Response } from 'express';
import type { TokenUsage, TurnResult, WireCall } from './turn-result';
import { setStop, type StopReason } from '../shared/stop';
import type { ToolTask } from '../types';

/** What one loop counted: its turns, tool calls, and the calls refused or results elided on the way. */
export interface LoopStats {
  turns: number;
  toolCalls: number;
  blocked: number;
  /** calls refused as repeats of the same tool with the same arguments */
  repeated: number;
  /** tool results of this loop replaced by a placeholder to keep within maxContextBytes */
  elided: number;
}

/** What a running tool tells a streaming client: its MCP task's status, or a line its program logged (`run_code`). */
export type ToolNote = { task: ToolTask } | { log: string };

/**
 * How the loop ended, in no wire's shape: why it stopped, the whole text, the last reply, usage summed over all turns.
 */
export interface Answer {
  stop: StopReason;
  /** every turn's text */
  text: string;
  /**
   * the loop's own note when it stopped before a final answer (a budget's, or the sign-in a tool needs): its own
   * paragraph after `text`, which each wire's writer appends
   */
  note?: string;
  /** the last model reply, if any: the answer takes its shape; on a budget stop its calls did not run */
  last?: TurnResult;
  /** the client's own calls, handed back (the first one carrying the loop's earlier work) */
  handBack?: WireCall[];
  /** calls to the client's approval tool, one per call waiting for a person (the first carrying the loop's work) */
  approvals?: WireCall[];
  usage?: TokenUsage;
}

/**
 * The note's paragraph as it follows the answer's text (after a blank line, unless the note is all it says); '' without
 * one.
 */
export function noteParagraph(answer: Answer): string {
  if (answer.note === undefined) return '';
  return answer.text === '' ? answer.note : `\n\n${answer.note}`;
}

/** The answer's text and its note: what the client reads. */
export const textWithNote = (answer: Answer): string => answer.text + noteParagraph(answer);

/** Takes the answer's text as it grows; a promise says to wait before reading more (the client is not keeping up). */
export type TextSink = (delta: string) => Promise<void> | void;

/** Where the loop's answer goes: one JSON completion at the end, or an SSE stream written while the loop runs. */
export interface Reply {
  /** turns are requested with `stream: true` and their text reaches the client as it arrives */
  readonly streams: boolean;
  /** a byte went to the client: the loop can no longer fall through */
  readonly committed: boolean;
  /** a promise when the client is not keeping up: resolves once it caught up (or went away) */
  text(delta: string): Promise<void> | void;
  toolsRunning(): void;
  /** a running tool reported progress */
  toolProgress?(): void;
  /** a running tool's MCP task changed its status, or its program logged a line (streamed: an SSE comment) */
  toolNote?(tool: string, note: ToolNote): void;
  /** what must hold before the answer goes out (a fleet's record of its id): awaited, then `send` */
  beforeSend?(answer: Answer): Promise<void> | undefined;
  send(answer: Answer, stats: LoopStats): void;
  /** ends what is still open and stops timers; the last call on a reply, whatever happened */
  dispose(): void;
}

/**
 * The answer's text over all turns, passed on as it grows. Each turn's text starts a new paragraph (a blank line
 * after the earlier text), so the streamed deltas and the JSON answer are the same text.
 */
export class AnswerText {
  private text = '';
  private paragraphOpen = false;

  constructor(private readonly forward: TextSink) {}

  get value(): string {
    return this.text;
  }

  newParagraph(): void {
    this.paragraphOpen = false;
  }

  append(delta: string): Promise<void> | void {
    if (delta === '') return;
    const separated = this.paragraphOpen || this.text === '' ? delta : `\n\n${delta}`;
    this.paragraphOpen = true;
    this.text += separated;
    return this.forward(separated);
  }
}

export function addUsage(total: TokenUsage | undefined, usage: TokenUsage | undefined): TokenUsage | undefined {
  if (!usage) return total;
  return {
    input: (total?.input ?? 0) + usage.input,
    output: (total?.output ?? 0) + usage.output,
    total: (total?.total ?? 0) + usage.total,
  };
}

/** The `x-agent-loop-*` headers of a JSON answer: how the loop went. */
export function setLoopHeaders(res: Response, stop: StopReason, stats: LoopStats, judged: boolean): void {
  res.setHeader('x-agent-loop-turns', String(stats.turns));
  res.setHeader('x-agent-loop-tool-calls', String(stats.toolCalls));
  setStop(res, stop);
  res.setHeader('x-agent-loop-repeated', String(stats.repeated));
  res.setHeader('x-agent-loop-elided', String(stats.elided));
  if (judged) res.setHeader('x-agent-loop-blocked', String(stats.blocked));
}
