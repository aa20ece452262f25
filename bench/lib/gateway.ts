import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeGate, openGate, parkedLoops } from './echo';
import { answerAsks } from '../../fixtures/ipc';
import { IDLE_SOCKET_MS } from '../../lib/self-call/pooled-connection';

/** Runs a system's Express app on a loopback port and answers the harness's asks over IPC. */
export function serve(app: http.RequestListener): void {
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  answerAsks({
    cpu: () => process.cpuUsage(),
    memory: () => {
      gc?.();
      gc?.();
      return process.memoryUsage();
    },
    gate: (payload) => ((payload as { closed: boolean }).closed ? closeGate() : openGate()),
    parked: () => parkedLoops(),
  });
}

export function upstreamOrigin(): string {
  const url = process.env.BENCH_UPSTREAM;
  if (!url) throw new Error('BENCH_UPSTREAM is not set: start systems through bench/run.ts');
  return url;
}

/**
 * The `agent` of every http-proxy-middleware in the bench: keep-alive, as the peers' HTTP clients are. Without one,
 * http-proxy opens a new upstream connection per request (`connection: close`); `--proxy-connection-close` shows that.
 * With the README's `timeout`: without it an idle connection outlives the upstream's `keepAliveTimeout` (30 s), and the
 * first turns after a pause longer than that were sent on connections the upstream was closing (a 504, and the loop
 * fell through: the client got turn 1's tool calls as its answer).
 */
export function upstreamAgent(): http.Agent | undefined {
  return process.env.BENCH_PROXY_CONNECTION_CLOSE === '1' ? undefined : keepAliveAgent();
}

/** A keep-alive agent that drops idle connections before the server does, as the README's "Use it" sets it. */
export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
}
