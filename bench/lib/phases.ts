import type { LoopRecord } from '../upstream';
import type { Client, Kind, Sample } from './client';
import type { BenchChild } from './processes';
import { TURNS } from './script';

/** One system under test: its gateway process, the client pointed at it, and the shared upstream. */
export interface Target {
  name: string;
  kind: Kind;
  gateway: BenchChild;
  client: Client;
  upstream: BenchChild;
}

export const turnsOf = (kind: Kind): number => (kind === 'loop' ? TURNS : 1);

let serial = 0;
const nextId = (tag: string) => `${tag}.${++serial}`;

export async function sequential(target: Target, tag: string, count: number, stream: boolean): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < count; i++) samples.push(await target.client.loop(nextId(tag), stream));
  return samples;
}

/** `workers` clients, each looping until `durationMs` is up or `maxLoops` have started in total. */
export async function concurrent(
  target: Target,
  tag: string,
  workers: number,
  durationMs: number,
  maxLoops: number,
  stream = false,
) {
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + durationMs;
  let launched = 0;
  const worker = async () => {
    while (performance.now() < end && launched < maxLoops) {
      launched++;
      samples.push(await target.client.loop(nextId(tag), stream));
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { samples, elapsedMs: performance.now() - started };
}

/** user + system CPU of the gateway process, in microseconds */
export async function cpuOf(target: Target): Promise<number> {
  const usage = await target.gateway.ask<NodeJS.CpuUsage>('cpu');
  return usage.user + usage.system;
}

/** Checks every answered loop against the upstream's own count: 4 requests (1 for the proxy) and all echoes seen. */
export async function verified(target: Target, samples: Sample[]): Promise<Sample[]> {
  const records = await target.upstream.ask<Record<string, LoopRecord>>('take');
  const expected = turnsOf(target.kind);
  for (const sample of samples) {
    if (!sample.ok) continue;
    const record = records[sample.id];
    const error = !record
      ? 'the upstream never saw this loop'
      : record.requests !== expected
        ? `${record.requests} upstream requests, expected ${expected}`
        : target.kind === 'loop' && !record.echoOk
          ? 'turn 4 request lacked the echoed tool results'
          : undefined;
    if (error) Object.assign(sample, { ok: false, error });
  }
  return samples;
}

/** Up to 3 failure messages, one per kind (ids and numbers do not make a new kind), each cut to 240 characters. */
export function distinctErrors(samples: Sample[]): string[] {
  const byKind = new Map<string, string>();
  for (const sample of samples) {
    if (sample.ok) continue;
    const error = sample.error ?? '?';
    const kind = error.replace(/\d+/g, '#').slice(0, 40);
    if (!byKind.has(kind)) byKind.set(kind, error.slice(0, 240));
  }
  return [...byKind.values()].slice(0, 3);
}

export interface ParkResult {
  parked: number;
  /** the second wave's RSS growth per loop, with the first wave still parked */
  rssPerLoopKiB: number;
  heapPerLoopKiB: number;
  /** the first wave's: it also holds the process's one-off growth from idle to `count` loops in flight */
  firstWaveRssPerLoopKiB: number;
  samples: Sample[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parks `count` more loops on the closed tool gate; resolves with how many are parked in all and the memory then. */
async function parkWave(target: Target, tag: string, count: number, deadline: number, pending: Promise<Sample>[]) {
  const goal = pending.length + count;
  for (let i = 0; i < count; i++) pending.push(target.client.loop(nextId(tag), false));
  let parked = 0;
  while ((parked = await target.gateway.ask<number>('parked')) < goal && performance.now() < deadline) await sleep(50);
  return { parked, memory: await target.gateway.ask<NodeJS.MemoryUsage>('memory') };
}

/**
 * Two waves of `count` loops parked on a closed tool gate, the gateway's memory measured before and after each,
 * then the gate opens. Per loop is the second wave's growth: a process going from idle to `count` loops in flight
 * also grows once (V8's young generation, its compiled code, the allocator's arenas), which the first wave holds.
 */
export async function park(target: Target, tag: string, count: number, timeoutMs: number): Promise<ParkResult> {
  await target.gateway.ask('gate', { closed: true });
  const before = await target.gateway.ask<NodeJS.MemoryUsage>('memory');
  const deadline = performance.now() + timeoutMs;
  const pending: Promise<Sample>[] = [];
  const first = await parkWave(target, tag, count, deadline, pending);
  const second = await parkWave(target, tag, count, deadline, pending);
  await target.gateway.ask('gate', { closed: false });
  const samples = await verified(target, await Promise.all(pending));
  const secondWave = Math.max(second.parked - first.parked, 1);
  const heap = (memory: NodeJS.MemoryUsage) => memory.heapUsed + memory.external;
  return {
    parked: second.parked,
    rssPerLoopKiB: (second.memory.rss - first.memory.rss) / secondWave / 1024,
    heapPerLoopKiB: (heap(second.memory) - heap(first.memory)) / secondWave / 1024,
    firstWaveRssPerLoopKiB: (first.memory.rss - before.rss) / Math.max(first.parked, 1) / 1024,
    samples,
  };
}
