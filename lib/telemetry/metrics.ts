import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AgentLoopError } from '../errors';
import type { TokenUsage } from '../loop/turn-result';
import { optionalPeer } from '../shared/optional-peer';
import type { MetricsOption } from './options';

type Prom = typeof PromClient;

/**
 * Which loop a sample is of: the binding that took the request and the wire it came on (`chat`, `responses`,
 * `messages`).
 */
export type LoopLabels = { binding: string; wire: string };

const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5];
const TURNS_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50];

/** Each metric's help text, by name (the prefix aside). */
const HELP: Record<string, string> = {
  loops_total: 'Loops ended, by binding, wire and stop reason.',
  loops_in_flight: 'Loops running now.',
  turns_per_loop: 'Turns (model calls) each loop made.',
  turn_duration_seconds: 'One turn: the self-call to the model, until its reply was read.',
  tool_calls_total: 'Tool calls, by outcome.',
  tool_call_duration_seconds: 'One tool call, checks and judge included.',
  tokens_total: "Tokens the loops' turns used, as the upstream reported them (type: input, output).",
  approvals_total:
    'Tool calls handed to a person for approval (asked), ' +
    'and how the answers came back: granted, denied, expired, refused.',
  input_questions_total:
    'Questions a tool asked the person (MCP input requests): asked, ' +
    'and how they came back: answered, declined, cancelled, refused.',
  store_operation_duration_seconds:
    'One call to the store (Redis with `store`): get, set, delete, increment, entries, publish; outcome ok or error.',
  store_errors_total: 'Store calls that failed (Redis unreachable or too slow), by operation.',
  key_budget_unenforced_total:
    'Key budget checks and sums skipped because the store was unreachable: the loop ran on without the budget.',
  store_changes_refused_total:
    'Settings or judge rules changes refused because they were not ' +
    "signed with the fleet's internalSecret (via: message, store).",
  judge_verdicts_total: 'Judge verdicts, by surface and action (error: the judge failed).',
};

/**
 * Makes a counter, gauge or histogram under the prefix, or finds the one another middleware made in the registry.
 */
function metricMaker(prom: Prom, registry: Registry, prefix: string) {
  function metric<T>(
    name: string,
    make: (config: { name: string; help: string; registers: Registry[] }) => T,
    help: string,
  ): T {
    return (
      (registry.getSingleMetric(prefix + name) as T | undefined) ??
      make({ name: prefix + name, help, registers: [registry] })
    );
  }
  return {
    counter: <L extends string>(name: string, labelNames: L[]) =>
      metric(name, (c) => new prom.Counter<L>({ ...c, labelNames }), HELP[name]),
    gauge: <L extends string>(name: string, labelNames: L[]) =>
      metric(name, (c) => new prom.Gauge<L>({ ...c, labelNames }), HELP[name]),
    histogram: <L extends string>(name: string, labelNames: L[], buckets: number[]) =>
      metric(name, (c) => new prom.Histogram<L>({ ...c, labelNames, buckets }), HELP[name]),
  };
}

/** The loop's Prometheus metrics. Two middlewares on one registry share them rather than fail to register twice. */
export class LoopMetrics {
  readonly registry: Registry;
  private readonly loops: Counter<'binding' | 'wire' | 'stop'>;
  private readonly inFlight: Gauge<'binding' | 'wire'>;
  private readonly turnsPerLoop: Histogram<'binding' | 'wire'>;
  private readonly turnSeconds: Histogram<'binding' | 'wire' | 'outcome'>;
  private readonly toolCalls: Counter<'binding' | 'wire' | 'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'binding' | 'wire' | 'tool' | 'outcome'>;
  private readonly verdicts: Counter<'binding' | 'surface' | 'action'>;
  private readonly tokens: Counter<'binding' | 'wire' | 'type'>;
  private readonly approvals: Counter<'binding' | 'wire' | 'outcome'>;
  private readonly questions: Counter<'binding' | 'wire' | 'outcome'>;
  private readonly storeSeconds: Histogram<'operation' | 'outcome'>;
  private readonly storeErrors: Counter<'operation'>;
  private readonly unenforced: Counter;
  private readonly refusedChanges: Counter<'via'>;

  constructor(prom: Prom, option: MetricsOption) {
    const registry = (this.registry = (option.registry as Registry | undefined) ?? prom.register);
    const make = metricMaker(prom, registry, option.prefix ?? 'agent_loop_');
    this.loops = make.counter('loops_total', ['binding', 'wire', 'stop']);
    this.inFlight = make.gauge('loops_in_flight', ['binding', 'wire']);
    this.turnsPerLoop = make.histogram('turns_per_loop', ['binding', 'wire'], TURNS_BUCKETS);
    this.turnSeconds = make.histogram('turn_duration_seconds', ['binding', 'wire', 'outcome'], TURN_BUCKETS);
    this.toolCalls = make.counter('tool_calls_total', ['binding', 'wire', 'tool', 'outcome']);
    this.toolSeconds = make.histogram(
      'tool_call_duration_seconds',
      ['binding', 'wire', 'tool', 'outcome'],
      TOOL_BUCKETS,
    );
    this.tokens = make.counter('tokens_total', ['binding', 'wire', 'type']);
    this.approvals = make.counter('approvals_total', ['binding', 'wire', 'outcome']);
    this.questions = make.counter('input_questions_total', ['binding', 'wire', 'outcome']);
    this.storeSeconds = make.histogram('store_operation_duration_seconds', ['operation', 'outcome'], STORE_BUCKETS);
    this.storeErrors = make.counter('store_errors_total', ['operation']);
    this.unenforced = make.counter('key_budget_unenforced_total', []);
    this.refusedChanges = make.counter('store_changes_refused_total', ['via']);
    this.verdicts = make.counter('judge_verdicts_total', ['binding', 'surface', 'action']);
  }

  loopStarted(labels: LoopLabels): void {
    this.inFlight.inc(labels);
  }

  loopEnded(labels: LoopLabels, stop: string, turns: number, usage: TokenUsage | undefined): void {
    this.inFlight.dec(labels);
    this.loops.inc({ ...labels, stop });
    this.turnsPerLoop.observe(labels, turns);
    if (!usage) return;
    this.tokens.inc({ ...labels, type: 'input' }, usage.input);
    this.tokens.inc({ ...labels, type: 'output' }, usage.output);
  }

  /** a request the loop did not take (`overloaded`, `shutdown`): counted among the loops, never in flight */
  loopNotStarted(labels: LoopLabels, stop: string): void {
    this.loops.inc({ ...labels, stop });
  }

  turn(labels: LoopLabels, outcome: 'ok' | 'error', seconds: number): void {
    this.turnSeconds.observe({ ...labels, outcome }, seconds);
  }

  toolCall(labels: LoopLabels, tool: string, outcome: string, seconds: number): void {
    const called = { ...labels, tool, outcome };
    this.toolCalls.inc(called);
    this.toolSeconds.observe(called, seconds);
  }

  approval(labels: LoopLabels, outcome: string): void {
    this.approvals.inc({ ...labels, outcome });
  }

  input(labels: LoopLabels, outcome: string): void {
    this.questions.inc({ ...labels, outcome });
  }

  storeCall(operation: string, seconds: number, ok: boolean): void {
    this.storeSeconds.observe({ operation, outcome: ok ? 'ok' : 'error' }, seconds);
    if (!ok) this.storeErrors.inc({ operation });
  }

  keyBudgetUnenforced(): void {
    this.unenforced.inc();
  }

  storeChangeRefused(via: 'message' | 'store'): void {
    this.refusedChanges.inc({ via });
  }

  verdict(binding: string, surface: string, action: string): void {
    this.verdicts.inc({ binding, surface, action });
  }
}

export function createMetrics(
  option: MetricsOption | false | undefined,
  component = 'agentLoop',
): LoopMetrics | undefined {
  if (!option) return undefined;
  const prom = optionalPeer<Prom>('prom-client');
  if (!prom) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_MISSING_PEER',
      `${component}: option 'metrics' needs the prom-client package, ` +
        `which is not installed: run npm install prom-client, or leave 'metrics' out.`,
    );
  }
  return new LoopMetrics(prom, option);
}
