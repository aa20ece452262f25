import { spawn } from 'node:child_process';

/** A redis-server of the gateway's own on loopback (its CPU is not the gateway's), stopped when the gateway exits. */
export function ownRedis(): string {
  const port = 20000 + (process.pid % 20000);
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  process.on('exit', () => redis.kill());
  return `redis://127.0.0.1:${port}`;
}
