import { percentile } from '../../spec/helpers/percentile';
import type { Sample } from './client';
import type { Target } from './phases';
import { concurrent, cpuOf, distinctErrors, park, sequential, turnsOf, verified } from './phases';

export const LATENCIES = [0, 20] as const;
export type Latency = (typeof LATENCIES)[number];

export interface Plan {
  runs: number;
  warmLoops: number;
  sequential: Record<Latency, number>;
  stream: Record<Latency, number>;
  loadMs: Record<Latency, number>;
  workers: number;
  maxLoadLoops: number;
  parkLoops: number;
  parkTimeoutMs: number;
}

export const PLANS: Record<'quick' | 'full', Plan> = {
  quick: {
    runs: 1,
    warmLoops: 20,
    sequential: { 0: 100, 20: 20 },
    stream: { 0: 30, 20: 12 },
    loadMs: { 0: 3_000, 20: 1_500 },
    workers: 64,
    maxLoadLoops: 100_000,
    parkLoops: 1_000,
    parkTimeoutMs: 15_000,
  },
  full: {
    runs: 3,
    warmLoops: 100,
    sequential: { 0: 300, 20: 100 },
    stream: { 0: 100, 20: 40 },
    loadMs: { 0: 10_000, 20: 5_000 },
    workers: 64,
    maxLoadLoops: 500_000,
    parkLoops: 1_000,
    parkTimeoutMs: 30_000,
  },
};

export interface Figures {
  loops: number;
  failures: number;
  errors: string[];
  p50Ms: number;
  p99Ms: number;
  overheadPerTurnUs: number;
  cpuPerTurnUs: number;
  loopsPerSec: number;
  loadCpuPerTurnUs: number;
  loadP50Ms: number;
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  parked?: number;
  rssPerLoopKiB?: number;
  heapPerLoopKiB?: number;
  firstWaveRssPerLoopKiB?: number;
}

const okMs = (samples: Sample[], pick: (sample: Sample) => number | undefined = (sample) => sample.ms) =>
  samples
    .filter((sample) => sample.ok)
    .map(pick)
    .filter((ms): ms is number => ms !== undefined);

/** Warm the JIT and the connection pools on every path before anything is measured. */
export async function warmUp(target: Target, plan: Plan): Promise<void> {
  await target.upstream.ask('latency', 0);
  await sequential(target, 'warm', plan.warmLoops, false);
  await sequential(target, 'warm', Math.ceil(plan.warmLoops / 3), true);
  await concurrent(target, 'warm', plan.workers, 1_000, plan.workers * 4);
  await target.upstream.ask('take');
}

export async function measure(
  target: Target,
  plan: Plan,
  latency: Latency,
  tag: string,
  log: (line: string) => void,
): Promise<Figures> {
  const turns = turnsOf(target.kind);
  await target.upstream.ask('latency', latency);

  const cpu0 = await cpuOf(target);
  const seq = await verified(target, await sequential(target, `${tag}.seq`, plan.sequential[latency], false));
  const cpu1 = await cpuOf(target);
  const streamed = await verified(target, await sequential(target, `${tag}.sse`, plan.stream[latency], true));
  const cpu2 = await cpuOf(target);
  const load = await concurrent(target, `${tag}.load`, plan.workers, plan.loadMs[latency], plan.maxLoadLoops);
  const cpu3 = await cpuOf(target);
  await verified(target, load.samples);

  const all = [...seq, ...load.samples, ...streamed];
  const failed = all.filter((sample) => !sample.ok);
  const p50Ms = percentile(okMs(seq), 50);
  const figures: Figures = {
    loops: all.length,
    failures: failed.length,
    errors: distinctErrors(all),
    p50Ms,
    p99Ms: percentile(okMs(seq), 99),
    overheadPerTurnUs: ((p50Ms - turns * latency) / turns) * 1000,
    cpuPerTurnUs: (cpu1 - cpu0) / (seq.length * turns),
    loopsPerSec: okMs(load.samples).length / (load.elapsedMs / 1000),
    loadCpuPerTurnUs: (cpu3 - cpu2) / (Math.max(load.samples.length, 1) * turns),
    loadP50Ms: percentile(okMs(load.samples), 50),
    ttfbP50Ms: percentile(
      okMs(streamed, (sample) => sample.ttfbMs),
      50,
    ),
    ttfbP99Ms: percentile(
      okMs(streamed, (sample) => sample.ttfbMs),
      99,
    ),
  };
  log(
    `  ${target.name} @${latency}ms: p50 ${p50Ms.toFixed(2)} ms, cpu/turn ${figures.cpuPerTurnUs.toFixed(0)} us, ` +
      `${figures.loopsPerSec.toFixed(0)} loops/s, ttfb ${figures.ttfbP50Ms.toFixed(2)} ms` +
      (failed.length ? `, ${failed.length}/${all.length} FAILED: ${figures.errors[0]}` : ''),
  );
  return figures;
}

/**
 * RSS per parked loop, in a fresh gateway process (a process that has already run the load phases keeps its grown
 * heap, so parked loops would fill pages it already holds): a short warm-up, then two waves of `parkLoops` loops
 * parked on the tool.
 */
export async function measureParked(target: Target, plan: Plan, tag: string, log: (line: string) => void) {
  await target.upstream.ask('latency', 0);
  await sequential(target, 'warm', 20, false);
  await target.upstream.ask('take');
  const parked = await park(target, `${tag}.park`, plan.parkLoops, plan.parkTimeoutMs);
  const failed = parked.samples.filter((sample) => !sample.ok);
  log(
    `  ${target.name} parked ${parked.parked}/${2 * plan.parkLoops}: ${parked.rssPerLoopKiB.toFixed(1)} KiB RSS, ` +
      `${parked.heapPerLoopKiB.toFixed(1)} KiB heap+external per loop of the second wave; ` +
      `${parked.firstWaveRssPerLoopKiB.toFixed(1)} KiB RSS per loop of the first` +
      (failed.length ? `, ${failed.length} FAILED: ${failed[0].error?.slice(0, 240)}` : ''),
  );
  return { parked, failed, errors: distinctErrors(parked.samples) };
}
