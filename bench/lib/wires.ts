import os from 'node:os';
import path from 'node:path';
import type { LoopRecord } from '../upstream';
import { percentile } from '../../spec/helpers/percentile';
import type { Sample } from './client';
import { BenchChild } from './processes';
import { TURNS } from './script';
import { median, round } from './stats';
import { WireClient, type WireName } from './wire-client';

/**
 * One gateway process driven on one wire: `agent-loop` on each of the four, the peers on chat completions, the
 * self-call floor on Messages and Gemini too.
 */
interface WireTarget {
  label: string;
  system: string;
  wire: WireName;
}

const TARGETS: WireTarget[] = [
  { label: 'agent-loop chat', system: 'agent-loop-wires', wire: 'chat' },
  { label: 'agent-loop Responses', system: 'agent-loop-wires', wire: 'responses' },
  { label: 'agent-loop Messages', system: 'agent-loop-wires', wire: 'messages' },
  { label: 'agent-loop Gemini', system: 'agent-loop-wires', wire: 'gemini' },
  { label: 'self-call-floor', system: 'self-call-floor', wire: 'chat' },
  // the same floor on Messages' and Gemini's scripted upstreams, whose own work a turn is not chat's (issue 39)
  { label: 'self-call-floor Messages', system: 'self-call-floor', wire: 'messages' },
  { label: 'self-call-floor Gemini', system: 'self-call-floor', wire: 'gemini' },
  { label: 'ai-sdk', system: 'ai-sdk', wire: 'chat' },
  { label: 'openai-agents', system: 'openai-agents', wire: 'chat' },
];
const PEERS = ['self-call-floor', 'ai-sdk', 'openai-agents'];
const WORKERS = 64;

/** One run's figures of one target: medians over its batches (CPU per turn), its streamed loops (TTFB), its load phase. */
interface RunFigures {
  jsonCpuUs: number;
  /** the wait per turn: a JSON batch's p50 loop time / 4 (the upstream answers at once), median over the batches */
  jsonWaitUs: number;
  streamCpuUs: number;
  ttfbMs: number;
  loopsPerSec: number;
  loadCpuUs: number;
}
type Running = WireTarget & { child: BenchChild; client: WireClient; runs: RunFigures[] };

const option = (argv: string[], flag: string, fallback: number) =>
  argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;

async function cpu(child: BenchChild): Promise<number> {
  const { user, system } = await child.ask<NodeJS.CpuUsage>('cpu');
  return user + system;
}

/** Every loop answered right and, by the upstream's count, with 4 requests and all echoes seen by turn 4. */
async function verify(upstream: BenchChild, target: WireTarget, samples: Sample[]): Promise<void> {
  const records = await upstream.ask<Record<string, LoopRecord>>('take');
  for (const sample of samples) {
    const record = records[sample.id];
    const error =
      sample.error ??
      (record?.requests !== TURNS
        ? `${record?.requests ?? 0} upstream requests`
        : record.echoOk
          ? undefined
          : 'turn 4 lacked the echoes');
    if (error) throw new Error(`${target.label}: loop ${sample.id}: ${error}`);
  }
}

let serial = 0;
/** `count` sequential loops; the gateway's CPU per turn over them, and the samples. */
async function batch(upstream: BenchChild, target: Running, count: number, stream: boolean) {
  const before = await cpu(target.child);
  const samples: Sample[] = [];
  for (let i = 0; i < count; i++) samples.push(await target.client.loop(`w${++serial}`, stream));
  const perTurn = ((await cpu(target.child)) - before) / (count * TURNS);
  await verify(upstream, target, samples);
  return { perTurn, samples };
}

/** `WORKERS` clients looping for `ms`: loops per second and the gateway's CPU per turn under that load. */
async function load(upstream: BenchChild, target: Running, ms: number) {
  const samples: Sample[] = [];
  const before = await cpu(target.child);
  const started = performance.now();
  const worker = async () => {
    while (performance.now() - started < ms) samples.push(await target.client.loop(`w${++serial}`));
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const elapsed = performance.now() - started;
  const spent = (await cpu(target.child)) - before;
  await verify(upstream, target, samples);
  return { loopsPerSec: samples.length / (elapsed / 1000), loadCpuUs: spent / (samples.length * TURNS) };
}

type Figures = { json: number[]; wait: number[]; stream: number[]; ttfb: number[] };

/** One run: `rounds` rounds of a JSON and a streamed batch per target in turn, then each target's load phase. */
async function run(
  upstream: BenchChild,
  targets: Running[],
  rounds: number,
  size: number,
  loadMs: number,
  warm: boolean,
): Promise<void> {
  const per = new Map(
    targets.map((target) => [
      target,
      { json: [] as number[], wait: [] as number[], stream: [] as number[], ttfb: [] as number[] },
    ]),
  );
  for (let r = 0; r < rounds; r++) {
    for (const target of targets) {
      const figures = per.get(target) as Figures;
      const json = await batch(upstream, target, size, false);
      figures.json.push(json.perTurn);
      figures.wait.push(
        (percentile(
          json.samples.map((sample) => sample.ms),
          50,
        ) /
          TURNS) *
          1000,
      );
      const streamed = await batch(upstream, target, Math.ceil(size / 2), true);
      figures.stream.push(streamed.perTurn);
      figures.ttfb.push(...streamed.samples.map((sample) => sample.ttfbMs ?? NaN));
    }
  }
  // the load phases in a different order each run, so that none is always first after the sequential part
  const order = targets.map((_, i) => targets[(i + serial) % targets.length]);
  for (const target of order) {
    const loaded = await load(upstream, target, loadMs);
    if (warm) continue;
    const figures = per.get(target) as Figures;
    target.runs.push({
      jsonCpuUs: median(figures.json),
      jsonWaitUs: median(figures.wait),
      streamCpuUs: median(figures.stream),
      ttfbMs: percentile(figures.ttfb.filter(Number.isFinite), 50),
      ...loaded,
    });
  }
}

const n = (value: number, digits = 0) => (Number.isFinite(value) ? round(value, digits).toLocaleString('en-US') : '–');

function tables(targets: Running[]): string[] {
  const figure = (target: Running, key: keyof RunFigures) => median(target.runs.map((r) => r[key]));
  const ratio = (a: Running, b: Running, key: keyof RunFigures) =>
    median(a.runs.map((r, i) => r[key] / b.runs[i][key]));
  const lines = [
    '| target | CPU/turn JSON µs | wait/turn JSON µs | CPU/turn streamed µs | TTFB final p50 ms | loops/s @64 | CPU/turn @64 µs |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...targets.map(
      (t) =>
        `| ${t.label} | ${n(figure(t, 'jsonCpuUs'))} | ${n(figure(t, 'jsonWaitUs'))} | ${n(figure(t, 'streamCpuUs'))} | ${n(figure(t, 'ttfbMs'), 2)} | ${n(figure(t, 'loopsPerSec'))} | ${n(figure(t, 'loadCpuUs'))} |`,
    ),
    '',
    "| agent-loop, ratio (median of the runs' ratios) | CPU/turn JSON | wait/turn JSON | CPU/turn streamed | TTFB final | loops/s @64 | CPU/turn @64 |",
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const ours = targets.filter((t) => t.system === 'agent-loop-wires');
  const chat = ours.find((t) => t.wire === 'chat');
  const keys: (keyof RunFigures)[] = ['jsonCpuUs', 'jsonWaitUs', 'streamCpuUs', 'ttfbMs', 'loopsPerSec', 'loadCpuUs'];
  const row = (wire: Running, other: Running) =>
    `| ${wire.label} / ${other.label} | ${keys.map((key) => `${n(ratio(wire, other, key), 2)}x`).join(' | ')} |`;
  for (const wire of ours) {
    for (const peer of targets.filter((t) => PEERS.includes(t.system) && t.wire === 'chat'))
      lines.push(row(wire, peer));
    const ownFloor = targets.find(
      (t) => t.system === 'self-call-floor' && t.wire === wire.wire && wire.wire !== 'chat',
    );
    if (ownFloor) lines.push(row(wire, ownFloor));
    if (chat && wire !== chat) lines.push(row(wire, chat));
  }
  return lines;
}

/**
 * `npm run bench -- --wires [--runs N] [--rounds N] [--batch N] [--load-ms N] [--ours-only | --only
 * <system>@<wire>,...]`: `agent-loop` on each wire (chat completions, OpenAI Responses, Anthropic Messages, Gemini: a
 * gateway process per wire against the scripted upstream's four servers) beside the peers on chat completions
 * (`self-call-floor`, `ai-sdk`, `openai-agents`) and the self-call floor on Messages' and Gemini's own upstreams,
 * 0 ms upstream. Each run takes, per target in turn, a batch of sequential JSON loops and one of streamed loops
 * (so that the shared machine's load swings hit every target alike), then 64 concurrent clients per target. Every
 * loop is verified (4 upstream requests, the echoes seen, the final text). Prints, per target, the median over the
 * runs of: CPU per turn (JSON, streamed), the wait per turn (a JSON loop's p50 time / 4), TTFB of the final answer,
 * loops/s and CPU per turn at 64 clients; and the ratios of `agent-loop`'s to each peer's, to the floor on its own
 * wire and to its own chat's, each the median of the runs' ratios.
 */
export async function benchWires(argv: string[], log: (line: string) => void): Promise<void> {
  const [runs, rounds, size, loadMs] = [
    option(argv, '--runs', 3),
    option(argv, '--rounds', 6),
    option(argv, '--batch', 30),
    option(argv, '--load-ms', 3_000),
  ];
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : undefined;
  const chosen = argv.includes('--ours-only')
    ? TARGETS.filter((t) => t.system === 'agent-loop-wires')
    : TARGETS.filter((t) => !only || only.includes(`${t.system}@${t.wire}`));
  const load = [os.loadavg()[0]];
  const started = Date.now();
  const upstream = new BenchChild(path.join(__dirname, '..', 'upstream.ts'));
  const origins = (await upstream.ready) as { origin: string; responses: string; messages: string; gemini: string };
  await upstream.ask('latency', 0);
  const env = {
    BENCH_UPSTREAM: origins.origin,
    BENCH_UPSTREAM_RESPONSES: origins.responses,
    BENCH_UPSTREAM_MESSAGES: origins.messages,
    BENCH_UPSTREAM_GEMINI: origins.gemini,
  };
  const profile = (label: string) =>
    process.env.WIRES_PROFILES
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${process.env.WIRES_PROFILES}`,
          `--cpu-prof-name=${label.replace(/ /g, '-')}.cpuprofile`,
        ]
      : [];
  const targets: Running[] = chosen.map((target) => ({
    ...target,
    child: new BenchChild(
      path.join(__dirname, '..', 'systems', `${target.system}.ts`),
      env,
      60_000,
      profile(target.label),
    ),
    client: undefined as unknown as WireClient,
    runs: [],
  }));
  try {
    for (const target of targets)
      target.client = new WireClient(
        `http://127.0.0.1:${(await target.child.ready).port as number}`,
        target.wire,
        WORKERS,
      );
    await run(upstream, targets, 2, 10, 1_000, true);
    for (let r = 1; r <= runs; r++) {
      await run(upstream, targets, rounds, size, loadMs, false);
      log(`wires: run ${r}/${runs} done, load average ${os.loadavg()[0].toFixed(2)}`);
    }
    await Promise.all(targets.map((target) => target.client.close()));
    load.push(os.loadavg()[0]);
    log(
      `\nwires: median of ${runs} run(s) of ${rounds} rounds (${size} JSON and ${Math.ceil(size / 2)} streamed loops a target a round, then ${WORKERS} clients for ${loadMs / 1000} s), ` +
        `every loop verified; ${round((Date.now() - started) / 1000)} s; 1-minute load average ${load.map((l) => l.toFixed(2)).join(' -> ')} on ${os.cpus().length} cores\n`,
    );
    for (const line of tables(targets)) log(line);
  } finally {
    await Promise.all(targets.map(({ child }) => child.stop()));
    await upstream.stop();
  }
}
