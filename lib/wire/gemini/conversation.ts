import type { HistoryEntry } from '../../trellis/hierarchy';
import { outcomeImages, toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { budgeted, type TurnSource } from '../kit/context-budget';
import { TurnBody, type TurnRequest } from '../../loop/turn-body';
import { TakenIds } from '../../loop/call-id';
import { isObject } from '../../shared/fields';
import { elision } from './elision';
import { geminiFunction, partsOf } from './request';
import { isCall, type Content, type Part } from './types';
import type { Conversation, LoopHandBacks, LoopSetup, TurnResult, WireCall } from '../../loop/wire';
import { carryOn } from './continuation';
import { approvalCall } from './answer';
import type { LoopTool } from '../../loop/loop-tool';

/** A functionResponse's text: the loop's `output` or `error`, else the response as JSON. */
function responseText(response: unknown): string {
  const fields = isObject(response) ? response : {};
  const text = fields.output ?? fields.error;
  return typeof text === 'string' ? text : (JSON.stringify(response) ?? '');
}

/**
 * A Gemini history as the hierarchy reads it: each functionCall, each functionResponse (`error` a failure). Calls
 * without ids are answered in order, so each call stands for itself by its place.
 */
export function* historyOf(contents: readonly Content[]): Generator<HistoryEntry> {
  let place = 0;
  /** the calls of the latest content that made any: the next responses answer them, one for one */
  let asked: string[] = [];
  for (const content of contents) {
    const parts = partsOf(content);
    const calls = parts.filter(isCall);
    if (calls.length > 0) asked = calls.map((part) => part.functionCall.id ?? `#${place++}`);
    for (const [i, part] of calls.entries()) yield { call: asked[i], tool: part.functionCall.name };
    let answered = 0;
    for (const part of parts) {
      const response = part.functionResponse;
      if (typeof response !== 'object' || response === null) continue;
      const id = response.id ?? asked[answered];
      answered++;
      yield {
        answers: id,
        text: responseText(response.response),
        failed: isObject(response.response) && 'error' in response.response,
      };
    }
  }
}

/**
 * One call's answer: `{ output }`, or `{ error }` for every outcome but `ok`; the model's own id only when it sent one.
 */
function functionResponse(call: WireCall, modelId: string | undefined, outcome: ToolOutcome): Part {
  const text = toolOutcomeText(outcome);
  return {
    functionResponse: {
      ...(modelId === undefined ? {} : { id: modelId }),
      name: call.name,
      response: outcome.kind === 'ok' ? { output: text } : { error: text },
    },
  };
}

/**
 * The loop's Gemini conversation: the client's contents, then each turn's model content (every part exactly as it
 * came, thought signatures on the parts they came on, its functionCall parts only those that run) and one user
 * content of a functionResponse per call, in call order. What goes upstream is the model's own: a call the model
 * sent without an id is answered without one, whatever id the loop knows it by.
 */
export class GeminiConversation implements Conversation<Content> {
  readonly items: Content[];
  private readonly body: TurnBody;
  private readonly source: TurnSource<Content>;
  /** the model's own id of each call (by the loop's id), undefined when it sent none */
  private readonly modelIds = new Map<string, string | undefined>();
  private readonly loopId: string;
  private readonly taken = new TakenIds((content: Content) =>
    partsOf(content).flatMap((part) => (isCall(part) && part.functionCall.id ? [part.functionCall.id] : [])),
  );

  constructor(
    private readonly client: Content[],
    fields: Record<string, unknown>,
    /** the client's turns read a stream (`:streamGenerateContent?alt=sse`): so do the loop's */
    private readonly streams: boolean,
    budget: Pick<LoopSetup, 'maxContextBytes' | 'stats' | 'logger' | 'loopId'>,
    private readonly handBacks: LoopHandBacks,
    /**
     * the client's functions that ask the person (approval, input): a hand-back of calls to them alone is the loop's
     * own
     */
    private readonly asking: readonly string[] = [],
  ) {
    this.loopId = budget.loopId;
    this.items = [...client];
    this.body = new TurnBody(fields, 'contents');
    this.source = budgeted(this.body, elision, client.length, budget);
  }

  /** the loop's own contents so far: what a hand-back carries */
  get own(): Content[] {
    return this.items.slice(this.client.length);
  }

  get history(): readonly Content[] {
    return this.client;
  }

  takenIds(): Set<string> {
    return this.taken.of(this.items);
  }

  addOutput(turn: TurnResult<Content>, kept: WireCall[]): void {
    const parts = partsOf(turn.output);
    for (const call of kept) {
      const part = parts[call.index];
      this.modelIds.set(call.id, isCall(part) ? part.functionCall.id : undefined);
    }
    this.items.push(withCalls(turn.output, kept));
  }

  /** A turn's answers join the user content of its other answers, when it is the last (an approval's decided call). */
  addOutcomes(kept: WireCall[], outcomes: ToolOutcome[]): void {
    if (kept.length === 0) return;
    // a call of an earlier request (an approval's decided call) is the model's own id when it holds one
    const modelId = (call: WireCall) =>
      this.modelIds.has(call.id) ? this.modelIds.get(call.id) : this.takenIds().has(call.id) ? call.id : undefined;
    const answers = kept.map((call, i) => functionResponse(call, modelId(call), outcomes[i]));
    const images = outcomes.flatMap((outcome) =>
      outcomeImages(outcome).map(({ mimeType, data }): Part => ({ inlineData: { mimeType, data } })),
    );
    const last = this.items[this.items.length - 1];
    const joins =
      last?.role === 'user' && last.parts.length > 0 && last.parts.every((part) => part.functionResponse !== undefined);
    if (joins) this.items[this.items.length - 1] = { ...last, parts: [...last.parts, ...answers, ...images] };
    else this.items.push({ role: 'user', parts: [...answers, ...images] });
  }

  request(): TurnRequest {
    return { ...this.source.request(this.items), stream: this.streams };
  }

  offer(tools: readonly LoopTool[]): void {
    this.body.appendTo('tools', [{ functionDeclarations: tools.map(geminiFunction) }]);
  }

  /** The client's calls, the first one's id carrying the loop's earlier work and the model's content as it sent it. */
  handBack(turn: TurnResult<Content>, calls: WireCall[]): WireCall[] {
    const asks = calls.length > 0 && calls.every((call) => this.asking.includes(call.name));
    if (asks) return carryOn(this.handBacks, this.own, { role: 'model', parts: calls.map(approvalCall) }, calls);
    // the client answers a call by its id: one the model did not send is the loop's, toward the client only
    const turnNumber = this.own.filter((content) => content.role === 'model').length + 1;
    const named = calls.map((call, i) => (call.id ? call : { ...call, id: `call_${this.loopId}_${turnNumber}_${i}` }));
    return carryOn(this.handBacks, this.own, withCalls(turn.output, named), named);
  }
}

/** The model's content with only the `kept` functionCall parts (by their place), each exactly as the model sent it. */
export function withCalls(content: Content, kept: readonly WireCall[]): Content {
  const places = new Set(kept.map((call) => call.index));
  const parts = partsOf(content);
  const shown = parts.filter((part, index) => !isCall(part) || places.has(index));
  return shown.length === parts.length ? content : { ...content, parts: shown };
}
