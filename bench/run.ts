import os from 'node:os';
import path from 'node:path';
import { Client } from './lib/client';
import type { Figures, Latency, Plan } from './lib/measure';
import { LATENCIES, PLANS, measure, measureParked, warmUp } from './lib/measure';
import type { Target } from './lib/phases';
import { BenchChild } from './lib/processes';
import type { SystemResult } from './lib/report';
import { aggregate, printReport, writeResults } from './lib/report';
import type { SystemSpec } from './lib/systems';
import { SYSTEMS } from './lib/systems';
import { benchWires } from './lib/wires';
import { benchCodeMode } from './code-mode';
import { benchCodeModeTokens } from './code-mode-tokens';

/** `npm run bench [-- --wires [--rounds N] [--batch N]]`: see lib/wires.ts. `npm run bench -- --code-mode [--rounds N] [--batch N]`: code-mode.ts, then code-mode-tokens.ts. `npm run bench [-- --quick] [--only a,b] [--runs N] [--proxy-connection-close] [--cpu-prof]`: every system against the same scripted upstream. */
function parseArgs(argv: string[]) {
  const quick = argv.includes('--quick');
  const valueOf = (flag: string) => {
    const at = argv.findIndex((arg) => arg === flag || arg.startsWith(`${flag}=`));
    if (at < 0) return undefined;
    return argv[at].includes('=') ? argv[at].split('=')[1] : argv[at + 1];
  };
  const only = valueOf('--only')
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = only?.filter((name) => !SYSTEMS.some((system) => system.name === name));
  if (unknown?.length)
    throw new Error(`unknown system(s) ${unknown.join(', ')}; known: ${SYSTEMS.map((s) => s.name).join(', ')}`);
  const plan: Plan = { ...PLANS[quick ? 'quick' : 'full'] };
  const runs = valueOf('--runs');
  if (runs) plan.runs = Math.max(1, Math.min(10, Number(runs) || 1));
  if (argv.includes('--cpu-prof')) cpuProfileDir = path.join(os.tmpdir(), `agent-loop-bench-profiles-${Date.now()}`);
  const proxyConnectionClose = argv.includes('--proxy-connection-close');
  if (proxyConnectionClose) process.env.BENCH_PROXY_CONNECTION_CLOSE = '1';
  return {
    quick,
    plan,
    proxyConnectionClose,
    systems: SYSTEMS.filter((system) => !only || only.includes(system.name)),
  };
}

const log = (line: string) => console.log(line);
/** `--cpu-prof`: every gateway process writes a V8 CPU profile here when it stops */
let cpuProfileDir: string | undefined;

/** Starts the system's gateway process, runs `body` against it, stops it. A gateway that does not start throws `LoadError`. */
class LoadError extends Error {}
async function withGateway<T>(
  system: SystemSpec,
  upstream: BenchChild,
  origin: string,
  body: (target: Target) => Promise<T>,
): Promise<T> {
  const profile = cpuProfileDir
    ? [`--cpu-prof`, `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=${system.name}.${Date.now()}.cpuprofile`]
    : [];
  const gateway = new BenchChild(
    path.join(__dirname, 'systems', `${system.name}.ts`),
    { BENCH_UPSTREAM: origin },
    60_000,
    profile,
  );
  let port: number;
  try {
    port = Number((await gateway.ready).port);
  } catch (error) {
    await gateway.stop();
    throw new LoadError((error as Error).message);
  }
  const client = new Client(`http://127.0.0.1:${port}`, system.kind);
  try {
    return await body({ name: system.name, kind: system.kind, gateway, client, upstream });
  } finally {
    await client.close();
    await gateway.stop();
  }
}

async function runSystem(
  system: SystemSpec,
  upstream: BenchChild,
  origin: string,
  plan: Plan,
  run: number,
): Promise<Record<Latency, Figures>> {
  const figures = await withGateway(system, upstream, origin, async (target) => {
    await warmUp(target, plan);
    const byLatency = {} as Record<Latency, Figures>;
    for (const latency of LATENCIES)
      byLatency[latency] = await measure(target, plan, latency, `${run}.${system.name}.${latency}`, log);
    return byLatency;
  });
  if (system.kind !== 'loop') return figures;
  const { parked, failed, errors } = await withGateway(system, upstream, origin, (target) =>
    measureParked(target, plan, `${run}.${system.name}`, log),
  );
  const atZero = figures[0];
  Object.assign(atZero, {
    parked: parked.parked,
    rssPerLoopKiB: parked.rssPerLoopKiB,
    heapPerLoopKiB: parked.heapPerLoopKiB,
    firstWaveRssPerLoopKiB: parked.firstWaveRssPerLoopKiB,
    loops: atZero.loops + parked.samples.length,
    failures: atZero.failures + failed.length,
    errors: [...atZero.errors, ...errors].slice(0, 3),
  });
  return figures;
}

async function main(): Promise<void> {
  if (process.argv.includes('--wires')) return benchWires(process.argv.slice(2), log);
  if (process.argv.includes('--code-mode')) {
    await benchCodeMode(process.argv.slice(2), log);
    return benchCodeModeTokens(process.argv.slice(2), log);
  }
  const started = Date.now();
  const { quick, plan, proxyConnectionClose, systems } = parseArgs(process.argv.slice(2));
  const loadBefore = os.loadavg()[0];
  log(
    `bench: ${quick ? 'quick' : 'full'}, ${plan.runs} run(s), systems: ${systems.map((s) => s.name).join(', ')}` +
      `${proxyConnectionClose ? ', proxies without an agent (a connection per request)' : ''}; load average ${loadBefore.toFixed(2)}` +
      `${cpuProfileDir ? `; CPU profiles of the gateways in ${cpuProfileDir}` : ''}`,
  );
  const upstream = new BenchChild(path.join(__dirname, 'upstream.ts'));
  const { origin } = (await upstream.ready) as { origin: string };
  const results = new Map<string, SystemResult>(systems.map((s) => [s.name, { ...s, runs: [] }]));
  try {
    for (let run = 1; run <= plan.runs; run++) {
      log(`run ${run}/${plan.runs}`);
      for (const system of systems) {
        const result = results.get(system.name) as SystemResult;
        if (result.loadError) continue;
        try {
          result.runs.push(await runSystem(system, upstream, origin, plan, run));
        } catch (error) {
          if (error instanceof LoadError) result.loadError = error.message;
          else result.runError = (error as Error).message;
          log(
            `  ${system.name}: ${error instanceof LoadError ? 'SKIPPED, did not load' : 'ABORTED'}: ${(error as Error).message}`,
          );
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  const summary = aggregate([...results.values()]);
  printReport(summary, log);
  const seconds = (Date.now() - started) / 1000;
  const meta = {
    quick,
    plan,
    proxyConnectionClose,
    subset: systems.length < SYSTEMS.length,
    seconds,
    loadAverage: [loadBefore, os.loadavg()[0]],
  };
  await writeResults(summary, meta, log);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
