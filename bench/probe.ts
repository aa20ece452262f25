import path from 'node:path';
import { percentile } from '../spec/helpers/percentile';
import { Client } from './lib/client';
import { BenchChild } from './lib/processes';
import { MODEL, userPrompt } from './lib/script';
import { SYSTEMS } from './lib/systems';

/**
 * `npx ts-node --transpile-only bench/probe.ts <system> [--stream] [--repeat N] [--latency MS]`: one loop's raw answer
 * and the upstream's count, or with --repeat the p50 of N sequential loops (and of the time to first byte when streamed).
 */
async function probe(argv: string[]): Promise<void> {
  const system = SYSTEMS.find((s) => s.name === argv[0]) ?? SYSTEMS[1];
  const stream = argv.includes('--stream');
  const option = (flag: string) => Number(argv[argv.indexOf(flag) + 1] ?? 0) || 0;
  const upstream = new BenchChild(path.join(__dirname, 'upstream.ts'));
  const { origin } = (await upstream.ready) as { origin: string };
  const gateway = new BenchChild(path.join(__dirname, 'systems', `${system.name}.ts`), { BENCH_UPSTREAM: origin });
  try {
    const { port } = (await gateway.ready) as { port: number };
    await upstream.ask('latency', argv.includes('--latency') ? option('--latency') : 0);
    if (!argv.includes('--repeat')) {
      const body = JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: userPrompt('probe') }] });
      const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      console.log(res.status, res.headers.get('content-type'));
      console.log(await res.text());
      console.log('upstream:', await upstream.ask('take'));
      return;
    }
    const client = new Client(`http://127.0.0.1:${port}`, system.kind, 8);
    const samples = [];
    for (let i = 0; i < option('--repeat'); i++) samples.push(await client.loop(`p${i}`, stream));
    await client.close();
    const ok = samples.filter((sample) => sample.ok);
    console.log(
      `${system.name}: ${ok.length}/${samples.length} ok (client side only), p50 ${percentile(
        ok.map((s) => s.ms),
        50,
      ).toFixed(2)} ms` +
        (stream
          ? `, ttfb p50 ${percentile(
              ok.map((s) => s.ttfbMs ?? NaN),
              50,
            ).toFixed(2)} ms`
          : ''),
    );
    if (ok.length < samples.length) console.log(samples.find((sample) => !sample.ok)?.error);
  } finally {
    await gateway.stop();
    await upstream.stop();
  }
}

probe(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
