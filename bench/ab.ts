import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { percentile } from '../spec/helpers/percentile';
import { Client } from './lib/client';
import { BenchChild } from './lib/processes';
import { TURNS } from './lib/script';
import { WireClient, type WireName } from './lib/wire-client';

/**
 * `npx ts-node --transpile-only bench/ab.ts <system>[@wire] <system>[@wire] ... [--rounds N] [--batch N] [--latency MS]
 * [--stream]`: the systems' gateways side by side, sequential loops in small batches taken in turn (A, B, A, B, ...),
 * so that the shared machine's load swings hit every system alike; prints the median CPU per turn of each system's
 * batches, and its ratio to the first system's (the median over the rounds of the two batches' ratio).
 * `@responses` or `@messages` drives that system on that wire (`agent-loop-wires`), `--stream` streams every loop;
 * either takes the wire's own client. `AB_RAW=<file>` writes every batch's CPU per turn there, by system, as JSON.
 */
async function ab(argv: string[]): Promise<void> {
  const option = (flag: string, fallback: number) =>
    argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;
  const names = argv.filter((arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  const [rounds, batch, latency] = [option('--rounds', 20), option('--batch', 100), option('--latency', 0)];
  const stream = argv.includes('--stream');
  const upstream = new BenchChild(path.join(__dirname, 'upstream.ts'));
  const origins = (await upstream.ready) as { origin: string; responses: string; messages: string };
  await upstream.ask('latency', latency);
  const env = {
    BENCH_UPSTREAM: origins.origin,
    BENCH_UPSTREAM_RESPONSES: origins.responses,
    BENCH_UPSTREAM_MESSAGES: origins.messages,
  };
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
        const before = await cpu(gateway.child);
        for (let i = 0; i < batch; i++) {
          const sample = await clients[index].loop(`ab${id++}`, stream);
          if (!sample.ok) throw new Error(`${gateway.name}: ${sample.error}`);
        }
        if (round >= 0) gateway.perTurn.push(((await cpu(gateway.child)) - before) / (batch * TURNS));
      }
    }
    await Promise.all(clients.map((client) => client.close()));
    if (process.env.AB_RAW)
      writeFileSync(process.env.AB_RAW, JSON.stringify(Object.fromEntries(gateways.map((g) => [g.name, g.perTurn]))));
    const first = gateways[0];
    for (const { name, perTurn } of gateways) {
      const ratios = perTurn.map((us, round) => us / first.perTurn[round]);
      console.log(
        `${name}: CPU/turn median ${percentile(perTurn, 50).toFixed(0)} µs (p25 ${percentile(perTurn, 25).toFixed(0)}, p75 ${percentile(perTurn, 75).toFixed(0)}) over ${perTurn.length} batches of ${batch} loops; ${percentile(ratios, 50).toFixed(3)}x ${first.name} (median of the rounds' ratios; p25 ${percentile(ratios, 25).toFixed(3)}, p75 ${percentile(ratios, 75).toFixed(3)})`,
      );
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
