import { budgeted, type TurnSource } from '../kit/context-budget';
import { outcomeImages, toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { TurnBody, openObject, type TurnRequest } from '../../loop/turn-body';
import { TakenIds } from '../../loop/call-id';
import { carryOn } from './continuation';
import { elision } from './elision';
import { callsOf, isObject, keptOutput, messageText, type ResponseItem } from './types';
import type { Conversation, LoopSetup, TurnResult, WireCall } from '../../loop/wire';
import type { LoopTool } from '../../loop/loop-tool';
import type { HistoryEntry } from '../../trellis/hierarchy';

/** How a turn tells the upstream what came before: the whole input, or the upstream's stored state plus what is new. */
export type Chaining = 'whole' | 'previous_response_id' | 'conversation';

/** A tool's outcome as `function_call_output`: its text, and its images as input parts beside it (`passImages`). */
function answerOf(call: WireCall, outcome: ToolOutcome): ResponseItem {
  const text = toolOutcomeText(outcome);
  const images = outcomeImages(outcome);
  const output =
    images.length === 0
      ? text
      : [
          { type: 'input_text', text },
          ...images.map(({ mimeType, data }) => ({
            type: 'input_image',
            image_url: `data:${mimeType};base64,${data}`,
          })),
        ];
  return { type: 'function_call_output', call_id: call.id, output };
}

const notRun = (call: WireCall): ResponseItem => ({
  type: 'function_call_output',
  call_id: call.id,
  output: toolOutcomeText({ kind: 'not_run', tool: call.name }),
});

/**
 * The loop's Responses conversation: the client's input items, then each turn's output items (whole, reasoning
 * included) and the `function_call_output` items answering its calls. Where the client chains on the upstream's
 * stored state (`previous_response_id`, `conversation`), each later turn sends only the new items, chained on the
 * previous turn's response; otherwise every turn carries the whole input.
 */
export class ResponsesConversation implements Conversation<ResponseItem[]> {
  readonly items: ResponseItem[];
  private readonly body?: TurnBody;
  private readonly whole?: TurnSource<ResponseItem>;
  private head: Record<string, unknown>;
  /** the head serialised once, on the second turn, open for a chained turn's fields: `{...head,` */
  private headJson?: string;
  private readonly taken = new TakenIds((item: ResponseItem) => callsOf([item]).map((call) => call.id));
  private pending: ResponseItem[] = [];
  private previous?: string;
  private turns = 0;

  constructor(
    readonly history: readonly ResponseItem[],
    private fields: Record<string, unknown>,
    private readonly chaining: Chaining,
    private readonly setup: LoopSetup,
    private readonly shape: (tool: LoopTool) => unknown,
  ) {
    this.items = [...history];
    if (chaining === 'whole') {
      this.body = new TurnBody(fields, 'input');
      this.whole = budgeted(this.body, elision, history.length, setup);
    }
    const { input: _new, previous_response_id: _chained, ...head } = fields;
    this.head = head;
  }

  takenIds(): Set<string> {
    return this.taken.of(this.items);
  }

  addOutput(turn: TurnResult<ResponseItem[]>, kept: WireCall[]): void {
    this.items.push(...keptOutput(turn.output, kept));
    if (this.chaining === 'whole') return;
    // The upstream stored every call of the turn: one the loop does not run still needs its answer there.
    this.previous = turn.id;
    const running = new Set(kept.map((call) => call.index));
    this.pending.push(...turn.calls.filter((call) => !running.has(call.index)).map(notRun));
  }

  addOutcomes(kept: WireCall[], outcomes: ToolOutcome[]): void {
    const answers = kept.map((call, i) => answerOf(call, outcomes[i]));
    this.items.push(...answers);
    if (this.chaining !== 'whole') this.pending.push(...answers);
  }

  request(): TurnRequest {
    this.turns++;
    if (this.whole) return this.whole.request(this.items);
    if (this.turns === 1) return this.first();
    const chained =
      this.chaining === 'previous_response_id' && this.previous !== undefined
        ? `"previous_response_id":${JSON.stringify(this.previous)},`
        : '';
    const input = this.pending;
    this.pending = [];
    this.headJson ??= openObject(JSON.stringify(this.head));
    return { json: `${this.headJson}${chained}"input":${JSON.stringify(input)}}`, stream: this.head.stream === true };
  }

  /** The client's request, with the answers to the calls its approvals decided after its input. */
  private first(): TurnRequest {
    const fields =
      this.pending.length === 0 ? this.fields : { ...this.fields, input: [...this.history, ...this.pending] };
    this.pending = [];
    return { json: JSON.stringify(fields), stream: this.fields.stream === true };
  }

  offer(tools: readonly LoopTool[]): void {
    const shaped = tools.map(this.shape);
    const more = (fields: Record<string, unknown>) => ({
      ...fields,
      tools: [...(Array.isArray(fields.tools) ? fields.tools : []), ...shaped],
    });
    this.fields = more(this.fields);
    this.head = more(this.head);
    this.headJson = undefined;
    this.body?.appendTo('tools', shaped);
  }

  handBack(_turn: TurnResult<ResponseItem[]>, calls: WireCall[]): WireCall[] {
    return carryOn(this.setup.handBacks, calls, this.items.slice(this.history.length));
  }
}

function outputTextOf(output: unknown): string {
  if (typeof output === 'string') return output;
  return Array.isArray(output)
    ? output.map((part) => (isObject(part) ? messageText({ content: [part] }) : '')).join('')
    : '';
}

/** A Responses history as the hierarchy reads it: its `function_call`s (all of them first), then their outputs. */
export function* historyOf(items: readonly unknown[]): Generator<HistoryEntry> {
  const listed = items.filter(isObject);
  for (const call of callsOf(listed)) yield { call: call.id, tool: call.name };
  for (const item of listed)
    if (item.type === 'function_call_output' && typeof item.call_id === 'string')
      yield { answers: item.call_id, text: outputTextOf(item.output) };
}
