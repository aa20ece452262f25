import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/**
 * `agent-loop-store` without the store: the same `keyBudget` and client key, the budget held in this process (the
 * default store), so that the pair differs only by Redis.
 */
const app = agentLoopApp({ keyBudget: { tokens: 1e15, windowSec: 2678400 } });
serve(function withClientKey(req, res) {
  req.headers.authorization ??= 'Bearer bench-client-key';
  app(req, res);
});
