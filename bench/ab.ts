import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { percentile } from '../spec/helpers/percentile';
import { Client } from './lib/client';
import { BenchChild, scriptedUpstream } from './lib/processes';
import { TURNS } from './lib/script';
import { WireClient, type WireName } from './lib/wire-client';

/**
 * `npx ts-node --transpile-only bench/ab.ts <system>[@wire] <system>[@wire] ... [--rounds N] [--batch N] [--latency MS]
 * [--stream]`: the systems' gateways side by side, sequential loops in small batches taken in turn (A, B, A, B, ...),
 * so that the shared machine's load swings hit every system alike; prints the median CPU per turn, wait per turn (p50 loop time / 4 less the latency) and, streamed, TTFB of each system's
 * batches, and its ratio to the first system's (the median over the rounds of the two batches' ratio).
 * `@responses`, `@messages` or `@gemini` drives that system on that wire (`agent-loop-wires`; `self-call-floor` and
 * `hand-loop` on `@messages` and `@gemini`, against the same scripted upstream), `--stream` streams every loop;
 * either takes the wire's own client. Beside each system's CPU, the scripted upstream's CPU per turn over the same
 * batches: a wire whose upstream works more waits more, whatever the gateway does. `AB_RAW=<file>` writes every
 * batch's CPU per turn (the gateway's and the upstream's), wait and TTFB there, by system, as JSON.
 */
async function ab(argv: string[]): Promise<void> {
  const option = (flag: string, fallback: number) =>
    argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;
  const names = argv.filter((arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  const [rounds, batch, latency] = [option('--rounds', 20), option('--batch', 100), option('--latency', 0)];
  const stream = argv.includes('--stream');
  const { upstream, env } = await scriptedUpstream(latency);
  const gateways = names.map((name) => ({
    name,
    wire: name.split('@')[1] as WireName | undefined,
    child: new BenchChild(
      path.join(__dirname, 'systems', `${name.split('@')[0]}.ts`),
      env,
      60_000,
      process.env.AB_PROFILES
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AB_PROFILES}`, `--cpu-prof-name=${name}.cpuprofile`]
        : [],
    ),
    perTurn: [] as number[],
    /** the scripted upstream's CPU per turn over the same batches: is the wire's upstream itself slower? */
    upstreamPerTurn: [] as number[],
    /** each batch's median wall time a turn beyond the upstream's latency, µs (and to the final answer's first byte, ms) */
    waitUs: [] as number[],
    ttfbMs: [] as number[],
  }));
  try {
    const clients = await Promise.all(
      gateways.map(async ({ child, wire }) => {
        const origin = `http://127.0.0.1:${((await child.ready) as { port: number }).port}`;
        return wire || stream ? new WireClient(origin, wire ?? 'chat') : new Client(origin, 'loop');
      }),
    );
    const cpu = async (child: BenchChild) => {
      const { user, system } = (await child.ask('cpu')) as { user: number; system: number };
      return user + system;
    };
    let id = 0;
    for (let round = -2; round < rounds; round++) {
      for (const [index, gateway] of gateways.entries()) {
        const [before, upstreamBefore] = [await cpu(gateway.child), await cpu(upstream)];
        const samples = [];
        for (let i = 0; i < batch; i++) {
          const sample = await clients[index].loop(`ab${id++}`, stream);
          if (!sample.ok) throw new Error(`${gateway.name}: ${sample.error}`);
          samples.push(sample);
        }
        if (round < 0) continue;
        gateway.perTurn.push(((await cpu(gateway.child)) - before) / (batch * TURNS));
        gateway.upstreamPerTurn.push(((await cpu(upstream)) - upstreamBefore) / (batch * TURNS));
        gateway.waitUs.push(
          ((percentile(
            samples.map((s) => s.ms),
            50,
          ) -
            TURNS * latency) /
            TURNS) *
            1000,
        );
        if (stream)
          gateway.ttfbMs.push(
            percentile(
              samples.map((s) => s.ttfbMs ?? NaN),
              50,
            ),
          );
      }
    }
    await Promise.all(clients.map((client) => client.close()));
    if (process.env.AB_RAW)
      writeFileSync(
        process.env.AB_RAW,
        JSON.stringify(
          Object.fromEntries(
            gateways.map((g) => [
              g.name,
              { cpu: g.perTurn, upstream: g.upstreamPerTurn, wait: g.waitUs, ttfb: g.ttfbMs },
            ]),
          ),
        ),
      );
    const first = gateways[0];
    const figure = (name: string, unit: string, values: number[], firsts: number[]) => {
      const ratios = values.map((value, round) => value / firsts[round]);
      return `${name} median ${percentile(values, 50).toFixed(unit === 'ms' ? 2 : 0)} ${unit} (p25 ${percentile(values, 25).toFixed(unit === 'ms' ? 2 : 0)}, p75 ${percentile(values, 75).toFixed(unit === 'ms' ? 2 : 0)}), ${percentile(ratios, 50).toFixed(3)}x ${first.name} (p25 ${percentile(ratios, 25).toFixed(3)}, p75 ${percentile(ratios, 75).toFixed(3)})`;
    };
    for (const { name, perTurn, upstreamPerTurn, waitUs, ttfbMs } of gateways) {
      console.log(`${name}, ${perTurn.length} batches of ${batch} loops (ratios: the median of the rounds' ratios):`);
      console.log(`  ${figure('CPU/turn', 'µs', perTurn, first.perTurn)}`);
      console.log(`  ${figure("the upstream's CPU/turn", 'µs', upstreamPerTurn, first.upstreamPerTurn)}`);
      console.log(`  ${figure('overhead/turn (p50 loop / 4, less the latency)', 'µs', waitUs, first.waitUs)}`);
      if (stream) console.log(`  ${figure('TTFB final p50', 'ms', ttfbMs, first.ttfbMs)}`);
    }
  } finally {
    await Promise.all(gateways.map(({ child }) => child.stop()));
    await upstream.stop();
  }
}

ab(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
