import type { Request, Response } from 'express';
import type { Config } from '../options/agent-loop';
import type { Settings } from '../options/tunables';
import type { Logger } from '../types';
import type { JudgeRunner } from '../judge/runner';
import type { LoopTelemetry, Telemetry } from '../telemetry/loop-telemetry';
import type { JudgeWire, Wire } from './wire';
import type { ApprovalReader } from '../person/approval-decision';
import type { Deadline } from './deadline';
import type { AnswerIds } from '../hand-back/answer-ids';
import type { LoopStats } from './context';
import type { Continuations, EarlierWork } from '../hand-back/continuation';
import type { SelfCaller } from './self-caller';
import type { KeyBudget, KeySpend } from '../store/key-budget';

/** What every loop of one agentLoop shares: its config, and the parts agentLoop built from it at start-up. */
export interface LoopServices {
  config: Config;
  caller: SelfCaller;
  /** seals the record of a loop's work that a hand-back carries */
  continuations: Continuations;
  answerIds: AnswerIds;
  logger: Logger;
  /** the run-time settings in force now: a loop takes them as it starts */
  settings: () => Settings;
  judge?: JudgeRunner;
  /** the wire the judge's model speaks */
  judgeWire: JudgeWire;
  /** reads the client's approval answers and seals the calls handed to it for approval */
  approvals: ApprovalReader;
  telemetry?: Telemetry;
  /** what each client key spent of `keyBudget` */
  keyBudget: KeyBudget;
  /** aborted when a shutdown's drain runs out */
  shutdown: AbortSignal;
}

/** The loop's signal, aborted by the deadline or by a client that went away, and whether the client went away. */
export interface WatchedClient {
  signal: AbortSignal;
  gone: boolean;
  unwatch(): void;
}

/** One loop as startLoop set it up, before its first turn: what its steps share. */
export interface Setup {
  client: WatchedClient;
  services: LoopServices;
  req: Request;
  res: Response;
  wire: Wire;
  settings: Settings;
  deadline: Deadline;
  signal: AbortSignal;
  id: string;
  logger: Logger;
  stats: LoopStats;
  telemetry: LoopTelemetry | undefined;
  url: string;
  agent: ReturnType<SelfCaller['agentFor']>;
  marker: string;
  earlier: EarlierWork;
  keySpend: KeySpend | undefined;
}
