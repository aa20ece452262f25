import type { ChatUsage, ToolTask } from '../types';
import { chatUsage, type TokenUsage, type TurnResult, type WireCall } from '../loop/turn-result';
import { argumentsText } from './content';

/** how many finished loops are kept */
export const RECENT_LOOPS = 100;
/** the longest text kept of a message, an argument list or a result, with `captureContent` */
const CONTENT_CHARS = 2000;

const clipped = (text: string) => (text.length > CONTENT_CHARS ? `${text.slice(0, CONTENT_CHARS)}…` : text);
const sinceStart = (startedAt: number) => Math.round(performance.now() - startedAt);

export interface ToolCallRecord {
  id: string;
  tool: string;
  /** ms after the loop started */
  startMs: number;
  /** undefined while it runs */
  durationMs?: number;
  /** the tool call's outcome (`ok`, `tool_error`, `timeout`, `blocked`...); undefined while it runs */
  outcome?: string;
  /** with `telemetry.captureContent` only */
  arguments?: string;
  result?: string;
  /** the MCP task it runs as, as last polled; its `statusMessage` (server text) with `captureContent` only */
  task?: ToolTask;
}

export interface TurnRecord {
  turn: number;
  startMs: number;
  durationMs?: number;
  /** `ok`, or why the model call failed (`upstream_error`, `deadline`, `aborted`); undefined while it runs */
  outcome?: string;
  tokens?: number;
  /** the tool calls the model asked for in this turn, as they ran after it */
  toolCalls: ToolCallRecord[];
  /** the model's text, with `telemetry.captureContent` only */
  content?: string;
}

export interface VerdictRecord {
  turn: number;
  surface: string;
  tool: string;
  action: string;
  reason?: string;
}

export interface LoopRecordView {
  id: string;
  binding: string;
  model: string;
  startedAt: string;
  /** how long it has run (in flight) or ran (finished) */
  durationMs: number;
  turn: number;
  turns: TurnRecord[];
  verdicts: VerdictRecord[];
  /** in flight: the tool calls running now */
  running?: ToolCallRecord[];
  /** finished: how it ended (`final`, `max_turns`, `deadline`, `tokens`, `fallthrough`, `client_gone`...) */
  stop?: string;
  /** finished with a question to the person: what it waits for (`waiting for input`, `waiting for sign-in`) */
  state?: string;
  usage?: ChatUsage;
}

/** A loop that stopped to ask the person is not over for them: the answer's next request carries it on. */
const WAITING: Readonly<Record<string, string>> = {
  input: 'waiting for input',
  authorization: 'waiting for sign-in',
};

/** One loop as the admin API shows it, filled in by its telemetry as it runs. */
export class LoopRecord {
  private readonly started = performance.now();
  private readonly startedAt = new Date().toISOString();
  private readonly turns: TurnRecord[] = [];
  private readonly verdicts: VerdictRecord[] = [];
  private durationMs?: number;
  private stop?: string;
  private usage?: TokenUsage;

  constructor(
    readonly id: string,
    private readonly binding: string,
    private readonly model: string,
    private readonly captureContent: boolean,
  ) {}

  turn(): (outcome: string, reply?: TurnResult) => void {
    const record: TurnRecord = { turn: this.turns.length + 1, startMs: sinceStart(this.started), toolCalls: [] };
    this.turns.push(record);
    return (outcome, reply) => {
      record.durationMs = sinceStart(this.started) - record.startMs;
      record.outcome = outcome;
      if (reply?.usage !== undefined) record.tokens = reply.usage.total;
      if (this.captureContent && reply !== undefined && reply.text !== '') record.content = clipped(reply.text);
    };
  }

  tool(call: WireCall): (outcome: string, text: string) => void {
    const record: ToolCallRecord = { id: call.id, tool: String(call.name), startMs: sinceStart(this.started) };
    if (this.captureContent) record.arguments = clipped(argumentsText(call) ?? '');
    this.turns.at(-1)?.toolCalls.push(record);
    return (outcome, text) => {
      record.durationMs = sinceStart(this.started) - record.startMs;
      record.outcome = outcome;
      if (this.captureContent) record.result = clipped(text);
    };
  }

  /** the running call `callId` runs as an MCP task, now in this state */
  task(callId: string, { id, status, statusMessage }: ToolTask): void {
    const record = this.turns.at(-1)?.toolCalls.find((call) => call.id === callId);
    if (record) record.task = { id, status, ...(this.captureContent && statusMessage ? { statusMessage } : {}) };
  }

  verdict(verdict: Omit<VerdictRecord, 'turn'>): void {
    this.verdicts.push({ turn: this.turns.length, ...verdict });
  }

  end(stop: string, usage: TokenUsage | undefined): void {
    this.durationMs = sinceStart(this.started);
    this.stop = stop;
    this.usage = usage;
  }

  view(): LoopRecordView {
    const base = {
      id: this.id,
      binding: this.binding,
      model: this.model,
      startedAt: this.startedAt,
      turn: this.turns.length,
      turns: this.turns,
      verdicts: this.verdicts,
    };
    if (this.stop !== undefined)
      return {
        ...base,
        durationMs: this.durationMs!,
        stop: this.stop,
        ...(WAITING[this.stop] ? { state: WAITING[this.stop] } : {}),
        ...(this.usage ? { usage: chatUsage(this.usage) } : {}),
      };
    const running = this.turns.at(-1)?.toolCalls.filter((call) => call.outcome === undefined) ?? [];
    return { ...base, durationMs: sinceStart(this.started), running };
  }
}

/** The loops running now and the last {@link RECENT_LOOPS} that finished, for the admin API and page. */
export class LoopRecorder {
  private readonly running = new Map<string, LoopRecord>();
  private readonly finished: LoopRecord[] = [];

  constructor(private readonly captureContent: boolean) {}

  start(id: string, binding: string, model: string): LoopRecord {
    const record = new LoopRecord(id, binding, model, this.captureContent);
    this.running.set(id, record);
    return record;
  }

  ended(record: LoopRecord): void {
    this.running.delete(record.id);
    this.finished.push(record);
    if (this.finished.length > RECENT_LOOPS) this.finished.shift();
  }

  /** a judge verdict on one of the loop's tool calls or results */
  verdict(loopId: string, verdict: Omit<VerdictRecord, 'turn'>): void {
    this.running.get(loopId)?.verdict(verdict);
  }

  /** newest first */
  snapshot(): { inFlight: LoopRecordView[]; recent: LoopRecordView[] } {
    return { inFlight: this.inFlight(), recent: this.finished.map((record) => record.view()).reverse() };
  }

  /** the running loops' views, newest first */
  inFlight(): LoopRecordView[] {
    return [...this.running.values()].map((record) => record.view()).reverse();
  }
}
