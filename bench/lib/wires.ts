import os from 'node:os';
import path from 'node:path';
import type { LoopRecord } from '../upstream';
import { percentile } from '../../spec/helpers/percentile';
import { BenchChild } from './processes';
import { TURNS } from './script';
import { WireClient, type WireName } from './wire-client';

const WIRES: WireName[] = ['chat', 'responses', 'messages'];

/**
 * `npm run bench -- --wires [--rounds N] [--batch N]`: the `agent-loop` system on each wire (chat completions, OpenAI
 * Responses, Anthropic Messages), a gateway process per wire against the scripted upstream's three servers, taking
 * sequential loops in batches in turn (chat, responses, messages, chat, ...) as bench/ab.ts does, so the shared
 * machine's load swings hit every wire alike. Every loop is verified (4 upstream requests, the echoes seen, the
 * final text); prints each wire's median CPU per turn of the gateway process over its batches.
 */
export async function benchWires(argv: string[], log: (line: string) => void): Promise<void> {
  const option = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
  const [rounds, batch] = [option('--rounds', 12), option('--batch', 40)];
  const load = [os.loadavg()[0]];
  const upstream = new BenchChild(path.join(__dirname, '..', 'upstream.ts'));
  const origins = (await upstream.ready) as { origin: string; responses: string; messages: string };
  const env = { BENCH_UPSTREAM: origins.origin, BENCH_UPSTREAM_RESPONSES: origins.responses, BENCH_UPSTREAM_MESSAGES: origins.messages };
  const gateways = WIRES.map((wire) => ({ wire, child: new BenchChild(path.join(__dirname, '..', 'systems', 'agent-loop-wires.ts'), env), perTurn: [] as number[] }));
  const cpu = async (child: BenchChild) => {
    const { user, system } = await child.ask<NodeJS.CpuUsage>('cpu');
    return user + system;
  };
  try {
    const clients = await Promise.all(gateways.map(async ({ wire, child }) => new WireClient(`http://127.0.0.1:${(await child.ready).port as number}`, wire)));
    let id = 0;
    let loops = 0;
    for (let round = -2; round < rounds; round++) {
      for (const [index, gateway] of gateways.entries()) {
        const before = await cpu(gateway.child);
        const samples = [];
        for (let i = 0; i < batch; i++) samples.push(await clients[index].loop(`w${id++}`));
        const spent = (await cpu(gateway.child)) - before;
        const records = await upstream.ask<Record<string, LoopRecord>>('take');
        for (const sample of samples) {
          const record = records[sample.id];
          const error = sample.error ?? (record?.requests !== TURNS ? `${record?.requests ?? 0} upstream requests` : record.echoOk ? undefined : 'turn 4 lacked the echoes');
          if (error) throw new Error(`${gateway.wire}: loop ${sample.id}: ${error}`);
        }
        loops += samples.length;
        if (round >= 0) gateway.perTurn.push(spent / (batch * TURNS));
      }
    }
    await Promise.all(clients.map((client) => client.close()));
    load.push(os.loadavg()[0]);
    log(`wires: ${loops} loops verified; load average ${load.map((l) => l.toFixed(2)).join(' -> ')} on ${os.cpus().length} cores`);
    for (const { wire, perTurn } of gateways) {
      log(`${wire}: CPU/turn median ${percentile(perTurn, 50).toFixed(0)} µs (p25 ${percentile(perTurn, 25).toFixed(0)}, p75 ${percentile(perTurn, 75).toFixed(0)}) over ${perTurn.length} batches of ${batch} loops`);
    }
  } finally {
    await Promise.all(gateways.map(({ child }) => child.stop()));
    await upstream.stop();
  }
}
