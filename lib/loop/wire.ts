import type { Readable } from 'node:stream';
import type { LoopTool } from './loop-tool';
import type { Request, Response } from 'express';
import type { AnswerIds } from '../hand-back/answer-ids';
import type { ApprovalReader, PersonDecision } from '../person/approval-decision';
import type { FollowUp, HandBacks, LoopHandBacks, Reopened } from '../hand-back/continuation';
import type { LoopStats, Reply, TextSink } from './reply';
import type { ToolOutcome } from './tool-outcome';
import type { TurnRequest } from './turn-body';
import type { ClientSearch } from '../tool-search/deferred-tools';
import type { ApiKeyHeader } from '../shared/credential';
import type { RoutePattern } from '../shared/route-pattern';
import type { Logger } from '../types';
import type { TokenUsage, TurnResult, WireCall } from './turn-result';

/** Reads one turn's reply; throws an Error naming what is wrong (the turn then fails like a failed model call). */
export interface TurnReader<Output = unknown> {
  /** a `stream: false` reply, parsed (undefined when it is not JSON) */
  json(body: unknown): TurnResult<Output>;
  /**
   * a `stream: true` reply, read as it arrives (`streamedTurn` with the wire's event reader); each text delta goes to
   * `onText` (a promise there says to wait); past `maxBytes` the turn fails
   */
  stream(stream: Readable, onText: TextSink, maxBytes: number): Promise<TurnResult<Output>>;
}

/** The conversation of one loop in the wire's own shape: the client's history, then the loop's turns. */
export interface Conversation<Output = unknown> {
  /** every item so far (chat messages, Responses input items, Messages messages): the judge's and the spans' view */
  readonly items: readonly unknown[];
  /** the client's own items (its history), as the request brought them */
  readonly history: readonly unknown[];
  /** call ids the conversation already holds: a call the model gives one of these (or none) gets the loop's own */
  takenIds(): Set<string>;
  /** the model's output joins, listing only the calls that will run (`kept`, ids as the loop gives them) */
  addOutput(turn: TurnResult<Output>, kept: WireCall[]): void;
  /** one answer per kept call, in call order, in the wire's shape (images too, when there are any) */
  addOutcomes(kept: WireCall[], outcomes: ToolOutcome[]): void;
  /** the next turn's request body (only new items where the wire chains turns upstream) */
  request(): TurnRequest;
  /** the client's own calls as handed back, carrying the loop's earlier work (continuation) */
  handBack(turn: TurnResult<Output>, calls: WireCall[]): WireCall[];
  /**
   * These tools join the request's tools from the next turn on, after every tool offered already, in the wire's shape
   * (a client's own tool held back as the client defined it, without `defer_loading`)
   */
  offer(tools: readonly LoopTool[]): void;
}

export interface ReplyOptions {
  keepAliveSec: number;
  /** the loop's signal: a loop that ends stops waiting for a slow client */
  signal: AbortSignal;
  /** a judge runs: the answer says how many calls it blocked */
  judged: boolean;
}

/**
 * A follow-up with the loop's earlier work put back: the verified tools alone (with this loop's own turns) unlock their
 * children.
 */
export interface Restored extends Reopened {
  body: WireRequest;
}

/** What a wire needs to set up one loop. */
export interface LoopSetup {
  loopId: string;
  /** the binding's tools, MCP's definitions as the loop's tools; the wire offers them in its own shape */
  tools: LoopTool[];
  /** a token budget counts: streamed turns must report their usage */
  countsTokens: boolean;
  /** undefined: no limit; else the wire elides the loop's oldest results to keep each request within it */
  maxContextBytes?: number;
  stats: LoopStats;
  logger: Logger;
  /** seals what a hand-back carries */
  handBacks: LoopHandBacks;
  /** where the loop's answer id is told the upstream's id of its last reply */
  answerIds: AnswerIds;
  /**
   * the name of the tool a client declares to approve calls: the loop's channel to the person, never offered to the
   * model
   */
  approvalTool: string;
  /**
   * the name of the tool a client declares to put a tool's questions to the person (`input.tool`), never offered either
   */
  inputTool?: string;
  /**
   * the loop serves a client's own tool search (its deferred tools found by the loop); false: it goes upstream as sent
   */
  servesClientSearch: boolean;
}

/** One loop's wire: its conversation, its reply reader and where its answer goes. */
export interface WireLoop<Output = unknown> {
  conversation: Conversation<Output>;
  reader: TurnReader<Output>;
  /** the client's own tools (by name): a call to one ends the loop and is handed back */
  clientTools: ReadonlySet<string>;
  /** the client's answer: one JSON object at the end, or the wire's stream written while the loop runs */
  reply(res: Response, options: ReplyOptions): Reply;
  /**
   * set when the client declared the approval tool (and the wire can hand calls to it): calls needing a person wait for
   * it
   */
  approvalTool?: string;
  /**
   * set when the client declared the input tool (and the wire can hand questions to it): a tool's questions wait for it
   */
  inputTool?: string;
  /**
   * the client's own tool search, when the loop serves it: its tools held back (as loop tools) and how it searches
   */
  clientSearch?: ClientSearch;
}

/** A wire whose clients can approve calls: the approval exchanges of a follow-up read back, in the wire's shape. */
export interface WireApprovals {
  /** the body with every approval exchange replaced by the model's own calls, and what the latest answers decided */
  settle(
    reader: ApprovalReader,
    req: Request,
    binding: string,
    body: WireRequest,
  ): { body: WireRequest; decisions: PersonDecision[] } | undefined;
  /** the body the normal handler gets when the loop falls through after answering the decided calls */
  withItems(body: WireRequest, items: readonly unknown[]): WireRequest;
}

/** The wire the judge's model speaks: its front door beside the client's, and its replies' reader. */
export interface JudgeWire {
  readonly path: string;
  readonly reader: TurnReader;
}

/**
 * `Authorization: Bearer <key>`, or a header holding the key alone (a gateway sending the operator's key also sends
 * `defaults`, each where the client sent none).
 */
export type ApiKeyOf =
  { header: 'authorization' } | { header: ApiKeyHeader; defaults?: Readonly<Record<string, string>> };

/** What an error's body says past its message: the request's field at fault, and a code (OpenAI's shape shows both). */
export interface ErrorFields {
  param?: string | null;
  code?: string | null;
}

/** A request body this wire's loop can serve. */
export interface WireRequest {
  model?: unknown;
  stream?: unknown;
  [key: string]: unknown;
}

/**
 * One front door's wire. The loop, tool calls, budgets, judge and telemetry know only this; everything in the
 * wire's own shape (the client's request and history, each turn's body and reply, the answer) lives behind it.
 */
export interface Wire<Output = unknown, Name extends string = string> {
  /** how the loop's telemetry, records and judge name this front door */
  readonly name: Name;
  /**
   * a request path (`req.path`) one of these matches at its end is this wire's front door, under any prefix
   * (`/chat/completions`; Gemini's model sits in its path: `/models/{model}:generateContent`)
   */
  readonly routes: readonly RoutePattern[];
  /** the client's body is a request this wire's loop can serve; anything else passes on untouched */
  accepts(body: unknown): body is WireRequest;
  /** the model the request asks for, which bindings match on (`modelInBody`: its body's `model`) */
  modelOf(body: WireRequest, req: Request): unknown;
  /** headers this wire's upstream needs, forwarded from the client's request onto every turn */
  readonly upstreamHeaders: readonly string[];
  /**
   * how this wire's clients and its upstream send an API key: its header is the one this wire declares for its clients'
   * keys, which the client's identity reads (`API_KEY_HEADERS` lists every wire's, a spec holds them equal)
   */
  readonly apiKey: ApiKeyOf;
  /** the body of a 429 (a spent `keyBudget`) in this wire's error shape */
  rateLimited(message: string): unknown;
  /**
   * the body of an error the loop answers itself (a refused credential, an invalid field) in this wire's error shape
   */
  error(status: number, message: string, fields?: ErrorFields): unknown;
  /**
   * A follow-up to a hand-back with the loop's earlier work put back (the normal handler gets it too) and every
   * call id the model's own again, chained on the upstream's reply where it chains on a loop's answer; undefined
   * when the body carries no token and chains on no answer of the loop (the common case).
   */
  restore(body: WireRequest, followUp: FollowUp): Restored | undefined;
  /**
   * the answer id a follow-up chains on (Responses' `previous_response_id`), for `restore` to find its upstream reply
   */
  chainedOn?(body: WireRequest): string | undefined;
  /**
   * tools that a trusted history (`trustClientHistory`, this wire's shape) says ran successfully: the text is all it
   * has
   */
  succeededIn(items: readonly unknown[]): Set<string>;
  /** undefined: this wire's clients cannot approve calls (a call needing approval reads that it cannot be given) */
  readonly approvals?: WireApprovals;
  /**
   * a request of this wire's the loop refuses (the error body of a 400, in the wire's shape), though its body is one it
   * serves
   */
  refusal?(req: Request): unknown;
  /** `req`: the client's request (the path says what some wires' bodies do not: Gemini's model and stream form) */
  open(body: WireRequest, setup: LoopSetup, req?: Request): WireLoop<Output>;
}

export type { FollowUp, HandBacks, LoopHandBacks, TokenUsage, TurnResult, WireCall };
