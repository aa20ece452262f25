import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AgentLoopError } from '../errors';
import type { TokenUsage } from '../wire/wire';
import { optionalPeer } from './optional-peer';
import type { MetricsOption } from './options';

type Prom = typeof PromClient;

const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const TURNS_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50];

/** The loop's Prometheus metrics. Two middlewares on one registry share them rather than fail to register twice. */
export class LoopMetrics {
  readonly registry: Registry;
  private readonly loops: Counter<'binding' | 'stop'>;
  private readonly inFlight: Gauge<'binding'>;
  private readonly turnsPerLoop: Histogram<'binding'>;
  private readonly turnSeconds: Histogram<'binding' | 'outcome'>;
  private readonly toolCalls: Counter<'binding' | 'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'binding' | 'tool' | 'outcome'>;
  private readonly verdicts: Counter<'binding' | 'surface' | 'action'>;
  private readonly tokens: Counter<'binding' | 'type'>;
  private readonly approvals: Counter<'binding' | 'outcome'>;

  constructor(prom: Prom, option: MetricsOption) {
    const registry = (this.registry = (option.registry as Registry | undefined) ?? prom.register);
    const prefix = option.prefix ?? 'agent_loop_';
    function metric<T>(name: string, make: (config: { name: string; help: string; registers: Registry[] }) => T, help: string): T {
      return (registry.getSingleMetric(prefix + name) as T | undefined) ?? make({ name: prefix + name, help, registers: [registry] });
    }
    this.loops = metric('loops_total', (c) => new prom.Counter({ ...c, labelNames: ['binding', 'stop'] }), 'Loops ended, by binding and stop reason.');
    this.inFlight = metric('loops_in_flight', (c) => new prom.Gauge({ ...c, labelNames: ['binding'] }), 'Loops running now.');
    this.turnsPerLoop = metric('turns_per_loop', (c) => new prom.Histogram({ ...c, labelNames: ['binding'], buckets: TURNS_BUCKETS }), 'Turns (model calls) each loop made.');
    this.turnSeconds = metric('turn_duration_seconds', (c) => new prom.Histogram({ ...c, labelNames: ['binding', 'outcome'], buckets: TURN_BUCKETS }), 'One turn: the self-call to the model, until its reply was read.');
    this.toolCalls = metric('tool_calls_total', (c) => new prom.Counter({ ...c, labelNames: ['binding', 'tool', 'outcome'] }), 'Tool calls, by outcome.');
    this.toolSeconds = metric('tool_call_duration_seconds', (c) => new prom.Histogram({ ...c, labelNames: ['binding', 'tool', 'outcome'], buckets: TOOL_BUCKETS }), 'One tool call, checks and judge included.');
    this.tokens = metric('tokens_total', (c) => new prom.Counter({ ...c, labelNames: ['binding', 'type'] }), "Tokens the loops' turns used, as the upstream reported them (type: input, output).");
    this.approvals = metric('approvals_total', (c) => new prom.Counter({ ...c, labelNames: ['binding', 'outcome'] }), 'Tool calls handed to a person for approval (asked), and how the answers came back: granted, denied, expired, refused.');
    this.verdicts = metric('judge_verdicts_total', (c) => new prom.Counter({ ...c, labelNames: ['binding', 'surface', 'action'] }), 'Judge verdicts, by surface and action (error: the judge failed).');
  }

  loopStarted(binding: string): void {
    this.inFlight.inc({ binding });
  }

  loopEnded(binding: string, stop: string, turns: number, usage: TokenUsage | undefined): void {
    this.inFlight.dec({ binding });
    this.loops.inc({ binding, stop });
    this.turnsPerLoop.observe({ binding }, turns);
    if (!usage) return;
    this.tokens.inc({ binding, type: 'input' }, usage.input);
    this.tokens.inc({ binding, type: 'output' }, usage.output);
  }

  /** a request the loop did not take (`overloaded`, `shutdown`): counted among the loops, never in flight */
  loopNotStarted(binding: string, stop: string): void {
    this.loops.inc({ binding, stop });
  }

  turn(binding: string, outcome: 'ok' | 'error', seconds: number): void {
    this.turnSeconds.observe({ binding, outcome }, seconds);
  }

  toolCall(binding: string, tool: string, outcome: string, seconds: number): void {
    this.toolCalls.inc({ binding, tool, outcome });
    this.toolSeconds.observe({ binding, tool, outcome }, seconds);
  }

  approval(binding: string, outcome: string): void {
    this.approvals.inc({ binding, outcome });
  }

  verdict(binding: string, surface: string, action: string): void {
    this.verdicts.inc({ binding, surface, action });
  }
}

export function createMetrics(option: MetricsOption | false | undefined, component = 'agentLoop'): LoopMetrics | undefined {
  if (!option) return undefined;
  const prom = optionalPeer<Prom>('prom-client');
  if (!prom) {
    throw new AgentLoopError('ERR_AGENT_LOOP_MISSING_PEER', `${component}: option 'metrics' needs the prom-client package, which is not installed: run npm install prom-client, or leave 'metrics' out.`);
  }
  return new LoopMetrics(prom, option);
}
