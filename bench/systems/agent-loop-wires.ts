import { agentLoopApp, proxyTo } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** `agent-loop` with normal handlers on the four wires: Responses, Messages and Gemini proxied to their scripted upstreams. */
const app = agentLoopApp();
app.post('/v1/responses', proxyTo(`${process.env.BENCH_UPSTREAM_RESPONSES}`));
app.post('/v1/messages', proxyTo(`${process.env.BENCH_UPSTREAM_MESSAGES}`));
app.post(/^\/v1beta\/models\//, proxyTo(`${process.env.BENCH_UPSTREAM_GEMINI}`));
serve(app);
