import type { Request } from 'express';
import type { ToolTask, Trellis } from '../types';
import type { TokenUsage, TurnResult, WireCall } from '../loop/turn-result';
import type { LoopRecord, LoopRecorder } from './loop-records';
import { createMetrics, type LoopLabels, type LoopMetrics } from './metrics';
import type { MetricsOption, TelemetryOption } from './options';
import type { LoopSpan, ToolSpan, TurnSpan } from './spans';
import { createTracing, type Tracing } from './tracing';

const seconds = (since: number) => (performance.now() - since) / 1000;

/** One turn as traces and metrics see it; `headers` carry the turn span's trace context onto the self-call. */
export class TurnWatch {
  private readonly started = performance.now();
  readonly headers?: Record<string, string>;

  constructor(
    private readonly labels: LoopLabels,
    private readonly span: TurnSpan | undefined,
    private readonly metrics: LoopMetrics | undefined,
    private readonly record?: (outcome: string, reply?: TurnResult) => void,
  ) {
    this.headers = span?.carrier;
  }

  /** the self-call, with the turn span active */
  within<T>(work: () => T): T {
    return this.span ? this.span.within(work) : work();
  }

  succeeded(reply: TurnResult): void {
    this.span?.succeeded(reply);
    this.metrics?.turn(this.labels, 'ok', seconds(this.started));
    this.record?.('ok', reply);
  }

  /** `type`: why, in a word (`upstream_error`, `deadline`, `aborted`) */
  failed(type: string): void {
    this.span?.failed(type);
    this.metrics?.turn(this.labels, 'error', seconds(this.started));
    this.record?.(type);
  }
}

/** One tool call as traces and metrics see it; `meta` carries its span's trace context in the MCP request. */
export class ToolWatch {
  private readonly started = performance.now();
  readonly meta?: Record<string, string>;

  constructor(
    private readonly labels: LoopLabels,
    private readonly tool: string,
    /** its span: a program's is its nested calls' parent */
    readonly span: ToolSpan | undefined,
    private readonly metrics: LoopMetrics | undefined,
    private readonly record?: (outcome: string, text: string) => void,
    /** the admin record of the call's MCP task */
    readonly task?: (task: ToolTask) => void,
  ) {
    this.meta = span?.carrier;
  }

  /** the Trellis call, with the tool span active */
  within<T>(work: () => T): T {
    return this.span ? this.span.within(work) : work();
  }

  reached(trellis: Trellis): void {
    this.span?.reached(trellis);
  }

  ended(outcome: { kind: string; text: string }): void {
    this.span?.ended(outcome.kind, outcome.text);
    this.metrics?.toolCall(this.labels, this.tool, outcome.kind, seconds(this.started));
    this.record?.(outcome.kind, outcome.text);
  }
}

/**
 * One loop's telemetry: there is one only when spans, metrics or the admin API's records are on, so the loop pays
 * nothing otherwise.
 */
export class LoopTelemetry {
  constructor(
    private readonly labels: LoopLabels,
    private readonly model: string,
    private readonly span: LoopSpan | undefined,
    private readonly metrics: LoopMetrics | undefined,
    private readonly records?: { recorder: LoopRecorder; record: LoopRecord },
  ) {
    metrics?.loopStarted(labels);
  }

  turn(messages: readonly unknown[]): TurnWatch {
    return new TurnWatch(this.labels, this.span?.turn(this.model, messages), this.metrics, this.records?.record.turn());
  }

  /**
   * `known`: the tool is the binding's; a name the model made up is counted as `_unknown`, not as a label of its own.
   * `under`: the program (code mode) whose nested call it is: its span is the call's parent.
   */
  tool(call: WireCall, known: boolean, under?: ToolWatch): ToolWatch {
    return new ToolWatch(
      this.labels,
      known ? call.name : '_unknown',
      this.span?.tool(call, under?.span),
      this.metrics,
      this.records?.record.tool(call),
      this.records && ((task) => this.records!.record.task(call.id, task)),
    );
  }

  /** `outcome`: asked, granted, denied, expired or refused */
  approval(tool: string, outcome: string): void {
    this.span?.approval(tool, outcome);
    this.metrics?.approval(this.labels, outcome);
  }

  /** `outcome`: asked, answered, declined, cancelled or refused */
  input(tool: string, outcome: string): void {
    this.span?.input(tool, outcome);
    this.metrics?.input(this.labels, outcome);
  }

  ended(stop: string, stats: { turns: number; toolCalls: number }, usage: TokenUsage | undefined): void {
    this.span?.end(stop, stats, usage);
    this.metrics?.loopEnded(this.labels, stop, stats.turns, usage);
    this.records?.record.end(stop, usage);
    if (this.records) this.records.recorder.ended(this.records.record);
  }
}

export type TelemetryOptions = { telemetry?: TelemetryOption; metrics?: MetricsOption | false };

/**
 * The middleware's tracing and metrics, made once from the options; undefined when neither is on (and nothing records).
 */
export class Telemetry {
  /** set once an admin API is made: it shows the loops in flight and the last ones */
  recorder?: LoopRecorder;

  private constructor(
    private readonly tracing: Tracing | undefined,
    readonly metrics: LoopMetrics | undefined,
  ) {}

  /** `telemetry`, or one that only records, with `recorder` recording every loop from now on */
  static recording(telemetry: Telemetry | undefined, recorder: LoopRecorder): Telemetry {
    const recording = telemetry ?? new Telemetry(undefined, undefined);
    recording.recorder = recorder;
    return recording;
  }

  static create(options: TelemetryOptions): Telemetry | undefined {
    const tracing = createTracing(options.telemetry);
    const metrics = createMetrics(options.metrics);
    return tracing || metrics ? new Telemetry(tracing, metrics) : undefined;
  }

  loop(req: Request, binding: string, model: string, loopId: string, wire: string): LoopTelemetry | undefined {
    const span = this.tracing?.startLoop(req, binding, model, loopId, wire);
    const records = this.recorder && { recorder: this.recorder, record: this.recorder.start(loopId, binding, model) };
    return span || this.metrics || records
      ? new LoopTelemetry({ binding, wire }, model, span, this.metrics, records)
      : undefined;
  }
}
