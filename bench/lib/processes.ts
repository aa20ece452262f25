import path from 'node:path';
import { Child } from '../../spec/helpers/child';
import { BENCH_PACKAGES, javascriptOf } from './javascript';

/** A bench process: `file` run as its transpiled JavaScript, finding the bench's own packages (bench/package.json) too. */
export class BenchChild extends Child {
  constructor(file: string, env: Record<string, string> = {}, readyTimeoutMs?: number, extraExecArgv?: string[]) {
    super(
      file,
      javascriptOf(file),
      { NODE_PATH: [BENCH_PACKAGES, process.env.NODE_PATH].filter(Boolean).join(path.delimiter), ...env },
      readyTimeoutMs,
      extraExecArgv,
    );
  }
}

/** The scripted upstream (`bench/upstream.ts`) answering after `latencyMs`, and what a gateway needs to reach its wires. */
export async function scriptedUpstream(
  latencyMs: number,
): Promise<{ upstream: BenchChild; env: Record<string, string> }> {
  const upstream = new BenchChild(path.join(__dirname, '..', 'upstream.ts'));
  const origins = (await upstream.ready) as Record<string, string>;
  await upstream.ask('latency', latencyMs);
  const env = {
    BENCH_UPSTREAM: origins.origin,
    BENCH_UPSTREAM_RESPONSES: origins.responses,
    BENCH_UPSTREAM_MESSAGES: origins.messages,
    BENCH_UPSTREAM_GEMINI: origins.gemini,
  };
  return { upstream, env };
}
