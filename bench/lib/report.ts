import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Figures, Latency, Plan } from './measure';
import { LATENCIES } from './measure';
import { median, round } from './stats';
import type { SystemSpec } from './systems';
import { targets } from './targets';

export interface SystemResult extends SystemSpec {
  runs: Record<Latency, Figures>[];
  loadError?: string;
  runError?: string;
}

export interface Summary extends SystemResult {
  median?: Record<Latency, Figures>;
}

const ROOT = path.join(__dirname, '..', '..');
const BEGIN = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

function medianOf(runs: Figures[]): Figures {
  const out = { ...runs[0] } as Record<string, unknown>;
  for (const key of Object.keys(runs[0]) as (keyof Figures)[]) {
    if (key === 'errors') out.errors = [...new Set(runs.flatMap((run) => run.errors))].slice(0, 3);
    else if (key === 'loops' || key === 'failures') out[key] = runs.reduce((sum, run) => sum + run[key], 0);
    else out[key] = median(runs.map((run) => Number(run[key])));
  }
  return out as unknown as Figures;
}

export function aggregate(results: SystemResult[]): Summary[] {
  return results.map((result) => {
    if (!result.runs.length) return result;
    const byLatency = {} as Record<Latency, Figures>;
    for (const latency of LATENCIES) byLatency[latency] = medianOf(result.runs.map((run) => run[latency]));
    return { ...result, median: byLatency };
  });
}

const cell = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? '–' : round(value, digits).toLocaleString('en-US');

export function table(summary: Summary[], latency: Latency): string {
  const rss = latency === 0;
  const head = [
    'system',
    'verified loops',
    'p50 ms',
    'p99 ms',
    'overhead/turn µs',
    'CPU/turn µs',
    'loops/s @64',
    'CPU/turn @64 µs',
    'TTFB final p50 ms',
  ];
  if (rss) head.push('RSS/parked loop KiB', 'RSS/loop, first 1,000 KiB');
  const rows = summary.map((system) => {
    const name = system.kind === 'single' ? `${system.name} (1 turn)` : system.name;
    const f = system.median?.[latency];
    if (!f)
      return [
        name,
        `not run: ${(system.loadError ?? system.runError ?? '?').replace(/\|/g, '/')}`,
        ...head.slice(2).map(() => '–'),
      ];
    const verified = f.failures ? `**WRONG: ${f.failures}/${f.loops} failed**` : `${f.loops}/${f.loops}`;
    const row = [
      name,
      verified,
      cell(f.p50Ms, 2),
      cell(f.p99Ms, 2),
      cell(f.overheadPerTurnUs),
      cell(f.cpuPerTurnUs),
      cell(f.loopsPerSec),
      cell(f.loadCpuPerTurnUs),
      cell(f.ttfbP50Ms, 2),
    ];
    if (rss)
      row.push(
        ...(system.kind === 'single'
          ? ['n/a (no tool)', 'n/a']
          : [cell(f.rssPerLoopKiB, 1), cell(f.firstWaveRssPerLoopKiB, 1)]),
      );
    return row;
  });
  return [head, head.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

/** The version of the first of `candidates` (folders under ROOT) that holds a package. */
function version(...candidates: string[]): string {
  for (const candidate of candidates) {
    try {
      return JSON.parse(readFileSync(path.join(ROOT, candidate, 'package.json'), 'utf8')).version;
    } catch {
      // try the next location
    }
  }
  return '?';
}

export function environment() {
  const peers: Record<string, string> = {
    ai: version('node_modules/ai'),
    '@ai-sdk/openai-compatible': version('node_modules/@ai-sdk/openai-compatible'),
    '@openai/agents': version('bench/node_modules/@openai/agents'),
    'openai (used by @openai/agents)': version(
      'bench/node_modules/@openai/agents-openai/node_modules/openai',
      'bench/node_modules/openai',
    ),
    undici: version('bench/node_modules/undici'),
    'http-proxy-middleware': version('node_modules/http-proxy-middleware'),
    express: version('node_modules/express'),
    axios: version('node_modules/axios'),
  };
  const machine = {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? '?',
    node: process.version,
    os: `${os.platform()} ${os.release()}`,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
  };
  return { machine, peers };
}

function errorsOf(summary: Summary[]): string[] {
  return summary.flatMap((system) => {
    if (!system.median) return [`- \`${system.name}\` did not run: ${system.loadError ?? system.runError}`];
    return LATENCIES.filter((latency) => system.median?.[latency].failures).map(
      (latency) =>
        `- \`${system.name}\` @${latency} ms failed verification: ${system.median?.[latency].errors.join('; ')}`,
    );
  });
}

export interface RunMeta {
  quick: boolean;
  plan: Plan;
  proxyConnectionClose: boolean;
  subset: boolean;
  seconds: number;
  /** 1-minute load average at the start and the end: other work on the machine shows here */
  loadAverage: number[];
}

function markdown(summary: Summary[], meta: RunMeta): string {
  const { machine, peers } = environment();
  const lines = [
    `Generated by \`npm run bench${meta.quick ? ' -- --quick' : ''}${meta.proxyConnectionClose ? ' --proxy-connection-close' : ''}\` ` +
      `on ${new Date().toISOString().slice(0, 10)}: median of ${meta.plan.runs} run(s), ${round(meta.seconds)} s in all; ` +
      `1-minute load average ${meta.loadAverage.map((load) => round(load, 2)).join(' at the start, ')} at the end.`,
    '',
    `Machine: ${machine.nproc} cores (${machine.cpu}), Node ${machine.node}, ${machine.os}, ${machine.memoryGiB} GiB.`,
    '',
    `Peers: ${Object.entries(peers)
      .map(([name, v]) => `\`${name}@${v}\``)
      .join(', ')}.`,
    '',
  ];
  for (const latency of LATENCIES) lines.push(`### Upstream latency ${latency} ms`, '', table(summary, latency), '');
  const problems = errorsOf(summary);
  if (problems.length) lines.push('Problems:', '', ...problems, '');
  lines.push('### Targets (issue 14)', '', '| target | figures | verdict |', '| --- | --- | --- |');
  for (const row of targets(summary)) lines.push(`| ${row.target} | ${row.figures} | ${row.verdict} |`);
  return lines.join('\n');
}

export function printReport(summary: Summary[], log: (line: string) => void): void {
  log('');
  for (const latency of LATENCIES) log(`Upstream latency ${latency} ms\n\n${table(summary, latency)}\n`);
  for (const problem of errorsOf(summary)) log(problem);
  log('\nTargets (issue 14)');
  for (const row of targets(summary)) log(`- ${row.target}: ${row.figures} => ${row.verdict}`);
}

/** bench/results.json and the results section of BENCHMARKS.md; a subset run (--only) writes neither. */
export async function writeResults(summary: Summary[], meta: RunMeta, log: (line: string) => void) {
  if (meta.subset) return log('\n(--only: bench/results.json and BENCHMARKS.md left as they were)');
  const { subset: _subset, ...run } = meta;
  const json = {
    date: new Date().toISOString(),
    mode: meta.quick ? 'quick' : 'full',
    ...run,
    ...environment(),
    targets: targets(summary),
    systems: summary,
  };
  await writeFile(path.join(__dirname, '..', 'results.json'), `${JSON.stringify(json, null, 2)}\n`);
  const file = path.join(ROOT, 'BENCHMARKS.md');
  const current = await readFile(file, 'utf8').catch(() => `# Benchmarks\n\n${BEGIN}\n${END}\n`);
  const from = current.indexOf(BEGIN);
  const to = current.indexOf(END);
  const base = from >= 0 && to > from ? current : `${current.trimEnd()}\n\n${BEGIN}\n${END}\n`;
  const start = base.indexOf(BEGIN) + BEGIN.length;
  await writeFile(file, `${base.slice(0, start)}\n${markdown(summary, meta)}\n${base.slice(base.indexOf(END))}`);
  log('\nwrote bench/results.json and the results section of BENCHMARKS.md');
}
