import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Tracer } from '@opentelemetry/api';
import type { Request } from 'express';
import { optionalPeer } from '../shared/optional-peer';
import type { TelemetryOption } from './options';
import { INTERNAL, LoopSpan } from './spans';

type Api = typeof OtelApi;

const TRACER = 'express-agent-loop';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Spans through the host app's @opentelemetry/api, when it has one; each loop continues the client's trace. */
export class Tracing {
  private readonly tracer: Tracer;
  /** what the global provider delegates to while no SDK is registered */
  private readonly noSdk: unknown;

  constructor(
    private readonly api: Api,
    private readonly captureContent: boolean,
  ) {
    this.tracer = api.trace.getTracer(TRACER);
    this.noSdk = new api.ProxyTracerProvider().getDelegate();
  }

  /** The loop's span; undefined when nothing records it (no SDK registered, or sampled out): then turns make none. */
  startLoop(req: Request, agent: string, model: string, loopId: string, wire: string): LoopSpan | undefined {
    // Without an SDK, not even a non-recording span: two property reads per loop.
    if ((this.api.trace.getTracerProvider() as OtelApi.ProxyTracerProvider).getDelegate?.() === this.noSdk)
      return undefined;
    const parent = this.parentOf(req);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent,
      'gen_ai.request.model': model,
      'agent_loop.id': loopId,
      'agent_loop.wire': wire,
    };
    const span = this.tracer.startSpan(`invoke_agent ${agent}`, { kind: INTERNAL, attributes }, parent);
    if (!span.isRecording()) return undefined;
    return new LoopSpan(this.api, this.tracer, span, this.api.trace.setSpan(parent, span), this.captureContent);
  }

  /**
   * The span an HTTP instrumentation opened for this request, else the trace the client sent: through the
   * registered propagator, else read as W3C `traceparent` (an SDK set up without a propagator still continues it).
   */
  private parentOf(req: Request): Context {
    const { context, propagation, trace } = this.api;
    const active = context.active();
    if (trace.getSpan(active)) return active;
    const extracted = propagation.extract(active, req.headers);
    if (trace.getSpan(extracted)) return extracted;
    const [, traceId, spanId, flags] = TRACEPARENT.exec(String(req.headers.traceparent)) ?? [];
    const state = req.headers.tracestate;
    const remote = {
      traceId,
      spanId,
      traceFlags: parseInt(flags, 16) & 1,
      isRemote: true,
      ...(typeof state === 'string' ? { traceState: this.api.createTraceState(state) } : {}),
    };
    return traceId && this.api.isSpanContextValid(remote) ? trace.setSpanContext(active, remote) : active;
  }
}

export function createTracing(option: TelemetryOption = {}): Tracing | undefined {
  if (option.tracing === false) return undefined;
  const api = optionalPeer<Api>('@opentelemetry/api');
  return api && new Tracing(api, option.captureContent === true);
}
