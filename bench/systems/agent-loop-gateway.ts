import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { agentLoopApp } from '../lib/agent-loop-app';
import { serve } from '../lib/gateway';

/** Takes every span the batch processor hands over and drops it: an exporter's own network cost is not the gateway's. */
const droppingExporter: SpanExporter = {
  export(_spans: ReadableSpan[], done) {
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};

// An OpenTelemetry SDK as a traced gateway sets one up (NodeSDK does the same): context propagation through async
// calls, every span sampled, batched to an exporter.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(droppingExporter)] }));

/** A fully mounted gateway: the judge's rules on both surfaces (none matching the bench's echo calls), metrics, tracing. */
serve(
  agentLoopApp({
    judge: {
      rules: [
        { surface: 'tool_call', tool: 'shell*', action: 'block', reason: 'no shell access from the gateway' },
        {
          surface: 'tool_call',
          tool: 'echo',
          when: { argument: 'text', matches: '^/etc/' },
          action: 'block',
          reason: 'no paths',
        },
        { surface: 'context', when: { content: 'sk-[A-Za-z0-9]{20,}' }, action: 'rewrite', replace: '[redacted key]' },
      ],
    },
    metrics: {},
  }),
);
