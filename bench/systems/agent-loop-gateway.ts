import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** A fully mounted gateway: the judge's rules on both surfaces (none of them matching the bench's echo calls). */
serve(
  agentLoopApp({
    judge: {
      rules: [
        { surface: 'tool_call', tool: 'shell*', action: 'block', reason: 'no shell access from the gateway' },
        { surface: 'tool_call', tool: 'echo', when: { argument: 'text', matches: '^/etc/' }, action: 'block', reason: 'no paths' },
        { surface: 'context', when: { content: 'sk-[A-Za-z0-9]{20,}' }, action: 'rewrite', replace: '[redacted key]' },
      ],
    },
  }),
);
