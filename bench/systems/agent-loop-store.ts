import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';
import { startRedis } from '../../spec/helpers/redis-server';

/**
 * `agent-loop` with a fleet's store: a real redis-server of its own (its CPU is not this process's) and `keyBudget`,
 * every request with a client key, so each turn adds its tokens in Redis and each loop checks the budget there.
 */
void startRedis().then((redis) => {
  const app = agentLoopApp({
    store: { url: redis.url },
    keyBudget: { tokens: 1e15, windowSec: 2678400 },
  });
  const withKey = (req: { headers: Record<string, unknown> }, _res: unknown, next: () => void) => {
    req.headers.authorization ??= 'Bearer bench-client-key';
    next();
  };
  const served = (req: never, res: never) => withKey(req, res, () => app(req, res));
  serve(served);
});
