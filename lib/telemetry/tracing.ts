import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { Request } from 'express';
import type { ChatCompletion, ChatMessage, ChatUsage, ToolCall, Trellis } from '../types';
import { inputMessages, outputMessages } from './content';
import { optionalPeer } from './optional-peer';
import type { TelemetryOption } from './options';

type Api = typeof OtelApi;

const TRACER = 'express-agent-loop';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// SpanKind and SpanStatusCode values, fixed by the API: no import needed where the API may be missing.
const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

/** The W3C trace context naming `span` as parent: self-calls send it as headers, MCP calls in `params._meta` (SEP-414). */
function traceContext(span: Span): Record<string, string> {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  const carrier: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}` };
  const state = traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

function failed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: ERROR });
}

function usageAttributes(usage: ChatUsage | undefined): Attributes {
  if (!usage) return {};
  return { 'gen_ai.usage.input_tokens': usage.prompt_tokens, 'gen_ai.usage.output_tokens': usage.completion_tokens };
}

/** A `chat {model}` span: one turn, one model call. */
export class TurnSpan {
  readonly headers: Record<string, string>;

  constructor(
    private readonly span: Span,
    private readonly captureContent: boolean,
  ) {
    this.headers = traceContext(span);
  }

  succeeded(reply: ChatCompletion): void {
    const [choice] = reply.choices;
    this.span.setAttributes({
      'gen_ai.response.id': reply.id,
      'gen_ai.response.model': reply.model,
      'gen_ai.response.finish_reasons': [choice.finish_reason ?? 'stop'],
      ...usageAttributes(reply.usage),
      ...(this.captureContent ? { 'gen_ai.output.messages': outputMessages(choice.message, choice.finish_reason) } : {}),
    });
    this.span.end();
  }

  failed(type: string): void {
    failed(this.span, type);
    this.span.end();
  }
}

/** An `execute_tool {tool}` span: one tool call, from the model's request to the text the model reads. */
export class ToolSpan {
  readonly meta: Record<string, string>;

  constructor(
    private readonly span: Span,
    private readonly captureContent: boolean,
  ) {
    this.meta = traceContext(span);
  }

  /** The call went out to Trellis: on an MCP Trellis it is a `tools/call` in the session named. */
  reached(trellis: Trellis): void {
    if (!trellis.mcpSession) return;
    const session = trellis.mcpSession();
    this.span.setAttributes({ 'mcp.method.name': 'tools/call', ...(session === undefined ? {} : { 'mcp.session.id': session }) });
  }

  ended(kind: string, text: string): void {
    if (kind !== 'ok') failed(this.span, kind);
    if (this.captureContent) this.span.setAttribute('gen_ai.tool.call.result', text);
    this.span.end();
  }
}

/** The `invoke_agent {binding}` span of one loop, and the turns and tool calls under it. */
export class LoopSpan {
  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
    private readonly captureContent: boolean,
  ) {}

  turn(model: string, messages: ChatMessage[]): TurnSpan {
    const attributes: Attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model };
    if (this.captureContent) attributes['gen_ai.input.messages'] = inputMessages(messages);
    return new TurnSpan(this.tracer.startSpan(model === '' ? 'chat' : `chat ${model}`, { kind: CLIENT, attributes }, this.context), this.captureContent);
  }

  tool(call: ToolCall): ToolSpan {
    const name = String(call.function?.name);
    const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': call.id, 'gen_ai.tool.type': 'function' };
    if (this.captureContent) attributes['gen_ai.tool.call.arguments'] = String(call.function?.arguments);
    return new ToolSpan(this.tracer.startSpan(`execute_tool ${name}`, { kind: INTERNAL, attributes }, this.context), this.captureContent);
  }

  /** `stop` is the loop's stop reason, or `fallthrough` / `client_gone`; a loop that gave up is an error. */
  end(stop: string, stats: { turns: number; toolCalls: number }, usage: ChatUsage | undefined): void {
    this.span.setAttributes({ 'agent_loop.stop': stop, 'agent_loop.turns': stats.turns, 'agent_loop.tool_calls': stats.toolCalls, ...usageAttributes(usage) });
    if (stop === 'fallthrough' || stop === 'upstream_error') failed(this.span, stop);
    this.span.end();
  }
}

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
  startLoop(req: Request, agent: string, model: string, loopId: string): LoopSpan | undefined {
    // Without an SDK, not even a non-recording span: two property reads per loop.
    if ((this.api.trace.getTracerProvider() as OtelApi.ProxyTracerProvider).getDelegate?.() === this.noSdk) return undefined;
    const parent = this.parentOf(req);
    const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, 'gen_ai.request.model': model, 'agent_loop.id': loopId };
    const span = this.tracer.startSpan(`invoke_agent ${agent}`, { kind: INTERNAL, attributes }, parent);
    if (!span.isRecording()) return undefined;
    return new LoopSpan(this.tracer, span, this.api.trace.setSpan(parent, span), this.captureContent);
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
    const remote = { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true, ...(typeof state === 'string' ? { traceState: this.api.createTraceState(state) } : {}) };
    return traceId && this.api.isSpanContextValid(remote) ? trace.setSpanContext(active, remote) : active;
  }
}

export function createTracing(option: TelemetryOption = {}): Tracing | undefined {
  if (option.tracing === false) return undefined;
  const api = optionalPeer<Api>('@opentelemetry/api');
  return api && new Tracing(api, option.captureContent === true);
}
