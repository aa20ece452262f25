import path from 'node:path';
import { percentile } from '../spec/helpers/percentile';
import { Client } from './lib/client';
import { BenchChild } from './lib/processes';
import { TURNS } from './lib/script';

/**
 * `npx ts-node --transpile-only bench/ab.ts <system> <system> ... [--rounds N] [--batch N] [--latency MS]`: the
 * systems' gateways side by side, sequential loops in small batches taken in turn (A, B, A, B, ...), so that the
 * shared machine's load swings hit every system alike; prints the median CPU per turn of each system's batches.
 */
async function ab(argv: string[]): Promise<void> {
  const option = (flag: string, fallback: number) =>
    argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback;
  const names = argv.filter((arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  const [rounds, batch, latency] = [option('--rounds', 20), option('--batch', 100), option('--latency', 0)];
  const upstream = new BenchChild(path.join(__dirname, 'upstream.ts'));
  const { origin } = (await upstream.ready) as { origin: string };
  await upstream.ask('latency', latency);
  const gateways = names.map((name) => ({
    name,
    child: new BenchChild(
      path.join(__dirname, 'systems', `${name}.ts`),
      { BENCH_UPSTREAM: origin },
      60_000,
      process.env.AB_PROFILES
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AB_PROFILES}`, `--cpu-prof-name=${name}.cpuprofile`]
        : [],
    ),
    perTurn: [] as number[],
  }));
  try {
    const clients = await Promise.all(
      gateways.map(
        async ({ child }) => new Client(`http://127.0.0.1:${((await child.ready) as { port: number }).port}`, 'loop'),
      ),
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
          const sample = await clients[index].loop(`ab${id++}`, false);
          if (!sample.ok) throw new Error(`${gateway.name}: ${sample.error}`);
        }
        if (round >= 0) gateway.perTurn.push(((await cpu(gateway.child)) - before) / (batch * TURNS));
      }
    }
    await Promise.all(clients.map((client) => client.close()));
    for (const { name, perTurn } of gateways)
      console.log(
        `${name}: CPU/turn median ${percentile(perTurn, 50).toFixed(0)} µs (p25 ${percentile(perTurn, 25).toFixed(0)}, p75 ${percentile(perTurn, 75).toFixed(0)}) over ${perTurn.length} batches of ${batch} loops`,
      );
  } finally {
    await Promise.all(gateways.map(({ child }) => child.stop()));
    await upstream.stop();
  }
}

ab(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
