import { spawn } from 'node:child_process';
import path from 'node:path';
import { BenchChild, scriptedUpstream } from './lib/processes';
import { javascriptOf } from './lib/javascript';
import { TURNS } from './lib/script';
import { WireClient, type WireName } from './lib/wire-client';

interface Trace {
  wallMs: number;
  cpuMs: number;
  inits: Record<string, number>;
  callbacks: Record<string, number>;
  waits: Record<string, { count: number; ms: number }>;
  spans: Record<string, number>;
  marks: Record<string, [number, number]>;
}

/**
 * `npx ts-node --transpile-only bench/trace.ts <system>[@wire] ... [--loops N] [--stream] [--latency MS]`: what one
 * turn waits on, by async_hooks (`bench/lib/trace-hook.ts`, loaded into each gateway): after 200 warm-up loops, N
 * sequential loops per system, each system's in turn; per turn, the async resources created and the callbacks the
 * gateway ran, by type, and its waits in the event loop (between two callbacks run from libuv), by the type of the
 * callback that ended each; and the critical path: the median time from the upstream's reply (or the client's
 * request) to the gateway's next write to the upstream (or its answer to the client). Hooks slow every callback:
 * compare counts and systems, not absolute times; `TRACE_HOOKS=0` takes the times without them.
 * `TRACE_STRACE=<dir>` also records each gateway's system calls over the traced loops (`strace -f -tt -T`).
 */
async function trace(argv: string[]): Promise<void> {
  const option = (flag: string, fallback: number) =>
    argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;
  const names = argv.filter((arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  const [loops, latency, stream] = [option('--loops', 50), option('--latency', 0), argv.includes('--stream')];
  const { upstream, env } = await scriptedUpstream(latency);
  const hook = javascriptOf(path.join(__dirname, 'lib', 'trace-hook.ts'));
  const gateways = names.map((name) => ({
    name,
    child: new BenchChild(path.join(__dirname, 'systems', `${name.split('@')[0]}.ts`), env, 60_000, [
      '--require',
      hook,
    ]),
  }));
  try {
    for (const { name, child } of gateways) {
      const { port } = (await child.ready) as { port: number };
      const client = new WireClient(`http://127.0.0.1:${port}`, (name.split('@')[1] ?? 'chat') as WireName);
      for (let i = 0; i < 200; i++) await client.loop(`warm-${name}-${i}`, stream);
      const { pid } = await child.ask<{ pid: number }>('trace', { on: true });
      const strace = process.env.TRACE_STRACE
        ? spawn('strace', ['-f', '-tt', '-T', '-o', `${process.env.TRACE_STRACE}/${name}.strace`, '-p', String(pid)], {
            stdio: 'ignore',
          })
        : undefined;
      if (strace) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await child.ask('trace', { on: true }); // counted afresh, strace's start left out
      }
      for (let i = 0; i < loops; i++) {
        const sample = await client.loop(`t-${name}-${i}`, stream);
        if (!sample.ok) throw new Error(`${name}: ${sample.error}`);
      }
      const figures = await child.ask<Trace>('trace', { on: false });
      strace?.kill();
      await client.close();
      const turns = loops * TURNS;
      const per = (map: Record<string, number>) =>
        Object.entries(map)
          .sort((a, b) => b[1] - a[1])
          .map(([type, count]) => `${type} ${(count / turns).toFixed(2)}`)
          .join(', ');
      console.log(
        `${name}: ${loops} loops, per turn: wall ${((figures.wallMs / turns) * 1000).toFixed(0)} µs, CPU ${((figures.cpuMs / turns) * 1000).toFixed(0)} µs`,
      );
      console.log(`  created: ${per(figures.inits)}`);
      console.log(`  run: ${per(figures.callbacks)}`);
      console.log(
        `  critical path (medians): ${Object.entries(figures.spans)
          .map(([span, ms]) => `${span} ${(ms * 1000).toFixed(0)} µs`)
          .join(', ')}`,
      );
      const marks = Object.entries(figures.marks).sort((a, b) => a[1][0] - b[1][0]);
      if (marks.length > 0)
        console.log(
          `  after the upstream's reply (median µs, count): ${marks.map(([label, [ms, count]]) => `${label} ${(ms * 1000).toFixed(0)} (${count})`).join(', ')}`,
        );
      const waits = Object.entries(figures.waits ?? {}).sort((a, b) => b[1].ms - a[1].ms);
      console.log(
        `  waits: ${waits.map(([type, w]) => `${type} ${(w.count / turns).toFixed(2)} x ${((w.ms / w.count) * 1000).toFixed(0)} µs`).join(', ')}`,
      );
    }
  } finally {
    await Promise.all(gateways.map(({ child }) => child.stop()));
    await upstream.stop();
  }
}

trace(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
