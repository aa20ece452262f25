import { spawn } from 'node:child_process';
import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/**
 * `agent-loop` with a fleet's store: a real redis-server of its own (its CPU is not this process's) and `keyBudget`,
 * every request with a client key, so each turn adds its tokens in Redis and each loop checks the budget there.
 */
const port = 20000 + (process.pid % 20000);
const redis = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  {
    stdio: 'ignore',
  },
);
process.on('exit', () => redis.kill());
const app = agentLoopApp({
  store: { url: `redis://127.0.0.1:${port}` },
  keyBudget: { tokens: 1e15, windowSec: 2678400 },
});
serve(function withClientKey(req, res) {
  req.headers.authorization ??= 'Bearer bench-client-key';
  app(req, res);
});
