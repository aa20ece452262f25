import type { Request, Response } from 'express';
import type { ConsentRequired } from '../trellis/oauth/consent';
import type { ToolCatalog } from '../trellis/catalog';
import type { DeferredTools } from '../tool-search/deferred-tools';
import type { ToolSearchConfig } from '../tool-search/options';
import type { CodeModeConfig } from '../code-mode/options';
import type { JudgeRunner } from '../judge/runner';
import type { LoopTelemetry, TurnWatch } from '../telemetry/loop-telemetry';
import type { Logger, RequireApproval, ToolProgress, Trellis } from '../types';
import type { Config } from '../options/agent-loop';
import type { Settings } from '../options/tunables';
import type { KeyMeter } from '../store/key-budget';
import type { Conversation, TurnResult, WireCall } from './wire';
import type { PendingApproval } from '../person/approval';
import type { PendingInput } from '../person/question';
import type { Deadline } from './deadline';
import type { LoopStats, Reply, TextSink, ToolNote } from './reply';

export type { LoopStats };
import type { RepeatedCalls } from './repeats';
import type { TurnRequest } from './turn-body';

/** A binding made ready at start-up: its Trellis, and the tools the model is offered with the tree that gates them. */
export interface ActiveBinding {
  name: string;
  trellis: Trellis;
  catalog: ToolCatalog;
  /** undefined: the loop uses the run-time `defaultMaxTurns` */
  maxTurns?: number;
  toolTimeoutSec: number;
  /** the named tools' own timeouts, in seconds, in place of `toolTimeoutSec` */
  toolTimeouts?: Record<string, number>;
  /** a tool's progress notification starts its timeout afresh (the total budget still bounds it) */
  resetTimeoutOnProgress?: boolean;
  requireApproval: RequireApproval;
  /** its tool search, global and own options merged; false: off */
  toolSearch: ToolSearchConfig | false;
  /** the model is offered `run_code` in place of the tools; undefined: off */
  codeMode?: CodeModeConfig;
}

/** Which loop a log line is about. */
export interface LoopLogFields {
  loopId: string;
  binding: string;
  wire: string;
}

/**
 * Everything one loop (one client request) carries from turn to turn: the agentLoop's config, the settings it
 * started with, and what is this request's own (binding, deadline, signal, conversation, counters).
 */
export interface Loop {
  id: string;
  req: Request;
  res: Response;
  /** a tool's server asked the user to consent (again): the loop ends with the link once the turn's calls are in */
  consent?: ConsentRequired;
  /** the options, validated and frozen at start-up */
  config: Config;
  /** the run-time settings as the loop started: it keeps them to its end */
  settings: Settings;
  binding: ActiveBinding;
  /** the binding's own `maxTurns`; the web_search-only loop's, `defaultMaxTurns` */
  maxTurns: number;
  deadline: Deadline;
  /** the front door the client used: its turns go to the same one */
  wire: string;
  /** the client's history and the loop's turns, in the wire's shape */
  conversation: Conversation;
  /**
   * the tools the client declared itself (and those of them a search loaded): a call to one of them is handed back to
   * it
   */
  clientTools: Set<string>;
  /** the tools held back for `tool_search`; undefined: every tool is offered */
  toolSearch?: DeferredTools;
  /** tools that ran successfully so far, history included: they unlock their children */
  succeeded: Set<string>;
  signal: AbortSignal;
  logger: Logger;
  /** the fields every line about this loop carries, made once: `{ ...loop.logFields, turn }` */
  logFields: LoopLogFields;
  verbose: boolean;
  stats: LoopStats;
  /** the client's answer as it is written: the text as it arrives (streaming), the final one */
  reply: Reply;
  /** a running tool reported progress (a streaming reply writes a keep-alive); undefined: nobody listens */
  onToolProgress?(tool: string, progress: ToolProgress): void;
  /** a running tool's MCP task changed its status, or its program logged a line; undefined: nobody listens */
  onToolNote?(tool: string, note: ToolNote): void;
  repeats: RepeatedCalls;
  /** the client key's token budget (`keyBudget`): adds a turn's tokens, true once the key spent it */
  keyBudget?: KeyMeter;
  judge?: JudgeRunner;
  /** the tool this client declared to approve calls; undefined: it cannot approve, calls needing approval do not run */
  approvalTool?: string;
  /** spans and metrics; undefined when neither is on */
  telemetry?: LoopTelemetry;
  /** `watch`: the turn's telemetry; its span's trace context is sent in place of the client's */
  complete(request: TurnRequest, signal: AbortSignal, onText?: TextSink, watch?: TurnWatch): Promise<TurnResult>;
  /**
   * one reply for the judge, through the judge's wire's path at the front door (`JudgeWire`), whatever the client's
   * wire: the reply whole, as the judge's wire's reader checked it
   */
  judgeCompletion(request: TurnRequest, signal: AbortSignal): Promise<unknown>;
  /** calls to the client's approval tool, one per call waiting for approval */
  askApproval(pending: PendingApproval[]): WireCall[];
  /** set when the client declared the input tool: a tool's questions go to the person through it */
  input?: { tool: string; maxRounds: number };
  /** calls to the client's input tool, one per question a waiting call's tool asked */
  askInput(pending: PendingInput[]): WireCall[];
}
