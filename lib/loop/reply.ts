import type { ChatCompletion, ChatMessage, ChatUsage } from '../types';
import type { StopReason } from './budget';
import type { LoopStats } from './context';

/** How the loop ended: the message for the client, why it stopped, and usage summed over all turns. */
export interface Answer {
  stop: StopReason;
  message: ChatMessage;
  finishReason: string;
  usage?: ChatUsage;
  /** the last model reply, if any: a JSON answer keeps its id, created and model */
  last?: ChatCompletion;
}

/** The id, created and model of the client's answer when no model reply lends its own. */
export interface AnswerIdentity {
  id: string;
  created: number;
  model: string;
}

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
  send(answer: Answer, stats: LoopStats): void;
  /** ends what is still open and stops timers; the last call on a reply, whatever happened */
  dispose(): void;
}

/**
 * The answer's text over all turns, passed on as it grows. Each turn's text, and the budget note, starts a new
 * paragraph (a blank line after the earlier text), so the streamed deltas and the JSON answer are the same text.
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

export function addUsage(total: ChatUsage | undefined, usage: ChatUsage | undefined): ChatUsage | undefined {
  if (!usage) return total;
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + (usage.prompt_tokens ?? 0),
    completion_tokens: (total?.completion_tokens ?? 0) + (usage.completion_tokens ?? 0),
    total_tokens: (total?.total_tokens ?? 0) + (usage.total_tokens ?? 0),
  };
}

/** The client's JSON answer: a normal chat completion shaped like the last reply, with usage summed over all turns. */
export function finalCompletion(answer: Answer, identity: AnswerIdentity): ChatCompletion {
  const shape: ChatCompletion = answer.last ?? { ...identity, object: 'chat.completion', choices: [] };
  const [first] = shape.choices;
  return {
    ...shape,
    choices: [{ ...first, index: 0, message: answer.message, finish_reason: answer.finishReason }],
    ...(answer.usage ? { usage: answer.usage } : {}),
  };
}
