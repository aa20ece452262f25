import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AgentLoopError } from '../errors';
import type { TokenUsage } from '../loop/turn-result';
import { optionalPeer } from './optional-peer';
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
    const prefix = option.prefix ?? 'agent_loop_';
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
    this.loops = metric(
      'loops_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'wire', 'stop'] }),
      'Loops ended, by binding, wire and stop reason.',
    );
    this.inFlight = metric(
      'loops_in_flight',
      (c) => new prom.Gauge({ ...c, labelNames: ['binding', 'wire'] }),
      'Loops running now.',
    );
    this.turnsPerLoop = metric(
      'turns_per_loop',
      (c) => new prom.Histogram({ ...c, labelNames: ['binding', 'wire'], buckets: TURNS_BUCKETS }),
      'Turns (model calls) each loop made.',
    );
    this.turnSeconds = metric(
      'turn_duration_seconds',
      (c) => new prom.Histogram({ ...c, labelNames: ['binding', 'wire', 'outcome'], buckets: TURN_BUCKETS }),
      'One turn: the self-call to the model, until its reply was read.',
    );
    this.toolCalls = metric(
      'tool_calls_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'wire', 'tool', 'outcome'] }),
      'Tool calls, by outcome.',
    );
    this.toolSeconds = metric(
      'tool_call_duration_seconds',
      (c) => new prom.Histogram({ ...c, labelNames: ['binding', 'wire', 'tool', 'outcome'], buckets: TOOL_BUCKETS }),
      'One tool call, checks and judge included.',
    );
    this.tokens = metric(
      'tokens_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'wire', 'type'] }),
      "Tokens the loops' turns used, as the upstream reported them (type: input, output).",
    );
    this.approvals = metric(
      'approvals_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'wire', 'outcome'] }),
      'Tool calls handed to a person for approval (asked), and how the answers came back: granted, denied, expired, refused.',
    );
    this.questions = metric(
      'input_questions_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'wire', 'outcome'] }),
      'Questions a tool asked the person (MCP input requests): asked, and how they came back: answered, declined, cancelled, refused.',
    );
    this.storeSeconds = metric(
      'store_operation_duration_seconds',
      (c) => new prom.Histogram({ ...c, labelNames: ['operation', 'outcome'], buckets: STORE_BUCKETS }),
      'One call to the store (Redis with `store`): get, set, delete, increment, entries, publish; outcome ok or error.',
    );
    this.storeErrors = metric(
      'store_errors_total',
      (c) => new prom.Counter({ ...c, labelNames: ['operation'] }),
      'Store calls that failed (Redis unreachable or too slow), by operation.',
    );
    this.unenforced = metric(
      'key_budget_unenforced_total',
      (c) => new prom.Counter(c),
      'Key budget checks and sums skipped because the store was unreachable: the loop ran on without the budget.',
    );
    this.refusedChanges = metric(
      'store_changes_refused_total',
      (c) => new prom.Counter({ ...c, labelNames: ['via'] }),
      "Settings or judge rules changes refused because they were not signed with the fleet's internalSecret (via: message, store).",
    );
    this.verdicts = metric(
      'judge_verdicts_total',
      (c) => new prom.Counter({ ...c, labelNames: ['binding', 'surface', 'action'] }),
      'Judge verdicts, by surface and action (error: the judge failed).',
    );
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
      `${component}: option 'metrics' needs the prom-client package, which is not installed: run npm install prom-client, or leave 'metrics' out.`,
    );
  }
  return new LoopMetrics(prom, option);
}
