import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { programPath } from '../system-programs';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every redis-server a spec started and has not stopped: stopped when the jest worker exits, whatever happened. */
const running = new Set<ChildProcess>();
process.on('exit', () => running.forEach((proc) => proc.kill('SIGKILL')));

export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>`, `rediss://` with TLS */
  url: string;
  /** stops it (SIGTERM) and resolves once it exited */
  stop(): Promise<void>;
  /** starts it again on the same port, empty (nothing is saved) */
  start(): Promise<void>;
}

/** A certificate and its key (PEM files) for a Redis that speaks TLS only. */
export interface RedisTls {
  certFile: string;
  keyFile: string;
}

const listenOn = (port: number, tls: RedisTls | undefined) =>
  tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile]
    : ['--port', String(port)];

function launch(port: number, extra: string[], tls?: RedisTls): Promise<ChildProcess> {
  const proc = spawn(
    programPath('redis-server'),
    [
      ...listenOn(port, tls),
      ...(tls ? ['--tls-ca-cert-file', tls.certFile, '--tls-auth-clients', 'no'] : []),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(proc);
  proc.on('exit', () => running.delete(proc));
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(proc);
    });
    proc.on('exit', (code) =>
      reject(new Error(`redis-server exited (${code}) before it was ready: ${out.slice(-2000)}`)),
    );
  });
}

/** A real redis-server on a free loopback port, nothing saved to disk (`--save '' --appendonly no`); TLS only with `tls`. */
export async function startRedis(extra: string[] = [], tls?: RedisTls): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | undefined = await launch(port, extra, tls);
  return {
    port,
    url: `${tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    async stop() {
      const stopping = proc;
      proc = undefined;
      if (!stopping || stopping.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        stopping.once('exit', () => resolve());
        stopping.kill('SIGTERM');
      });
    },
    async start() {
      proc ??= await launch(port, extra, tls);
    },
  };
}
