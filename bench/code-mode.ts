import os from 'node:os';
import { asLoopTools, catalogOf, catalogTools } from '../fixtures/tool-catalog/catalog';
import { runCodeTool } from '../lib/code-mode/declarations';
import { runProgram, type NestedAnswer } from '../lib/code-mode/sandbox';
import { closeIdleWorkers } from '../lib/code-mode/warm-workers';
import { percentile } from '../spec/helpers/percentile';

const limits = { timeoutSec: 10, memoryMb: 64, maxCalls: 500 };
const never = new AbortController().signal;
const answer = async (): Promise<NestedAnswer> => ({ value: { ok: 1 } });
const ms = (values: number[], p: number) => percentile(values, p).toFixed(2);
const us = (values: number[], p: number) => (percentile(values, p) * 1000).toFixed(0);

/** A program's whole round trip, `return 1;`: a cold worker (thread and QuickJS started), and warm ones (kept). */
async function starts(rounds: number) {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 10 === 0) await closeIdleWorkers();
    const started = performance.now();
    await runProgram('return 1;', limits, answer, never);
    (i % 10 === 0 ? cold : warm).push(performance.now() - started);
  }
  return { cold, warm };
}

/**
 * What a nested call adds to the tool's own time: the gap between the host answering one call and the next call
 * reaching it (worker message, QuickJS resolving the await, the next call's message), the host answering at once.
 */
async function nestedCalls(programs: number, calls: number) {
  const gaps: number[] = [];
  for (let i = 0; i < programs; i++) {
    let last = 0;
    await runProgram(
      `for (let i = 0; i < ${calls}; i++) await tools.t({ i });`,
      limits,
      async () => {
        const now = performance.now();
        if (last) gaps.push(now - last);
        last = performance.now();
        return answer();
      },
      never,
    );
  }
  return gaps;
}

/** The process's RSS with `count` programs running at once (each waiting on a call), over the same process idle. */
async function rssPerProgram(count: number) {
  await closeIdleWorkers();
  global.gc?.();
  const before = process.memoryUsage().rss;
  const release: (() => void)[] = [];
  let arrived = 0;
  let allArrived: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (allArrived = resolve));
  const running = Array.from({ length: count }, () =>
    runProgram(
      'const data = Array.from({ length: 1000 }, (_, i) => ({ i }));\nawait tools.wait();\nreturn data.length;',
      limits,
      () =>
        new Promise<NestedAnswer>((resolve) => {
          release.push(() => resolve({ value: null }));
          if (++arrived === count) allArrived();
        }),
      never,
    ),
  );
  await ready;
  const during = process.memoryUsage().rss;
  for (const go of release) go();
  await Promise.all(running);
  await closeIdleWorkers();
  return (during - before) / count / 2 ** 20;
}

/** `npx ts-node --transpile-only bench/code-mode.ts [--rounds N]`: code mode's sandbox in this process, no server. */
export async function benchCodeMode(argv: string[], log: (line: string) => void): Promise<void> {
  const rounds = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 200;
  log(`code mode: ${rounds} programs; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}`);
  await runProgram('return 1;', limits, answer, never);
  const { cold, warm } = await starts(rounds);
  log(`program start to end, cold worker: p50 ${ms(cold, 50)} ms, p99 ${ms(cold, 99)} ms (${cold.length})`);
  log(`program start to end, warm worker: p50 ${ms(warm, 50)} ms, p99 ${ms(warm, 99)} ms (${warm.length})`);
  const gaps = await nestedCalls(Math.ceil(rounds / 20), 100);
  log(`nested call over a direct one: p50 ${us(gaps, 50)} µs, p99 ${us(gaps, 99)} µs (${gaps.length} calls)`);
  for (const count of [4, 8])
    log(`RSS per running program (${count} at once): ${(await rssPerProgram(count)).toFixed(1)} MiB`);
  for (const count of [catalogTools().length, 300]) {
    const tools = asLoopTools(catalogOf(count));
    const all = Buffer.byteLength(JSON.stringify(tools));
    const code = Buffer.byteLength(JSON.stringify([runCodeTool(tools, limits)]));
    log(`${count} tools: ${all} bytes of definitions offered whole, ${code} bytes for run_code declaring them all`);
  }
  log(`load average after: ${os.loadavg()[0].toFixed(2)}`);
}

if (require.main === module) void benchCodeMode(process.argv.slice(2), (line) => console.log(line));
