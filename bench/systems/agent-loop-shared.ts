import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';
import { ownRedis } from '../lib/own-redis';

/**
 * `agent-loop` with a fleet's store (a real redis-server of its own) and nothing else: what a replica shares
 * (approval answers, settings, rules, the loop list) without `keyBudget`; the pair of `agent-loop`.
 */
serve(agentLoopApp({ store: { url: ownRedis() } }));
