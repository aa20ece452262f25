import { agentLoopApp, proxyTo } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** `agent-loop` with normal handlers on the three wires: Responses and Messages proxied to their scripted upstreams. */
const app = agentLoopApp();
app.post('/v1/responses', proxyTo(`${process.env.BENCH_UPSTREAM_RESPONSES}`));
app.post('/v1/messages', proxyTo(`${process.env.BENCH_UPSTREAM_MESSAGES}`));
serve(app);
