import type { Kind } from './client';

export interface SystemSpec {
  name: string;
  kind: Kind;
  what: string;
}

/** In table order. Each one is `bench/systems/<name>.ts`, run in a gateway process of its own. */
export const SYSTEMS: SystemSpec[] = [
  {
    name: 'proxy',
    kind: 'single',
    what: 'http-proxy-middleware only: one turn, the floor of a single call (not a loop)',
  },
  {
    name: 'hand-loop',
    kind: 'loop',
    what: 'hand-written in-process loop, undici straight to the upstream: the physical floor',
  },
  {
    name: 'self-call-floor',
    kind: 'loop',
    what: 'the hand loop, each turn re-entering the app through axios to a proxy route',
  },
  {
    name: 'ai-sdk',
    kind: 'loop',
    what: '`ai` generateText/streamText with `@ai-sdk/openai-compatible`, stopWhen: stepCountIs(4)',
  },
  {
    name: 'openai-agents',
    kind: 'loop',
    what: '`@openai/agents` run() with OpenAIChatCompletionsModel, tracing disabled, maxTurns 4',
  },
  {
    name: 'agent-loop',
    kind: 'loop',
    what: 'this package as the README mounts it: agentLoop() with one binding and localTrellis, proxy as the normal handler; self-call in process',
  },
  {
    name: 'agent-loop-store',
    kind: 'loop',
    what: 'agent-loop with `store` (a redis-server of its own) and `keyBudget`: a budget check per loop, an increment per turn',
  },
  { name: 'agent-loop-socket', kind: 'loop', what: "the same with selfCall: 'socket': each turn over loopback HTTP" },
  {
    name: 'agent-loop-gateway',
    kind: 'loop',
    what: 'a fully mounted gateway: agent-loop with the judge rules, metrics and tracing (an OpenTelemetry SDK, every span sampled) on',
  },
];
