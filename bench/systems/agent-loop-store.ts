import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';
import { ownRedis } from '../lib/own-redis';

/**
 * `agent-loop` with a fleet's store (a real redis-server of its own) and `keyBudget`, every request with a client
 * key, so each loop checks the budget there and sends its tokens (see lib/store/key-budget.ts).
 */
const app = agentLoopApp({ store: { url: ownRedis() }, keyBudget: { tokens: 1e15, windowSec: 2678400 } });
serve(function withClientKey(req, res) {
  req.headers.authorization ??= 'Bearer bench-client-key';
  app(req, res);
});
