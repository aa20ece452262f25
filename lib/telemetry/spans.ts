import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { Trellis } from '../types';
import type { TokenUsage, TurnResult, WireCall } from '../loop/turn-result';
import { boundedAttribute, namePart } from './bounded';
import { argumentsText, inputMessages, outputMessages } from './content';

// SpanKind and SpanStatusCode values, fixed by the API: no import needed where the API may be missing.
export const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

/**
 * The W3C trace context naming `span` as parent: self-calls send it as headers, MCP calls in `params._meta` (SEP-414).
 */
function traceContext(span: Span): Record<string, string> {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  const carrier: Record<string, string> = {
    traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`,
  };
  const state = traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

/**
 * Runs `work` with `span` as the active span, so instrumented HTTP clients underneath (http, undici) are its children.
 */
type Within = <T>(span: Span, work: () => T) => T;

function failed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: ERROR });
}

function usageAttributes(usage: TokenUsage | undefined): Attributes {
  if (!usage) return {};
  return { 'gen_ai.usage.input_tokens': usage.input, 'gen_ai.usage.output_tokens': usage.output };
}

/** A span under the loop's: the trace context its call carries, and that call run with it active. */
abstract class CallSpan {
  readonly carrier: Record<string, string>;

  constructor(
    /** the span itself: a program's span is its nested calls' parent */
    readonly span: Span,
    protected readonly captureContent: boolean,
    private readonly active: Within,
  ) {
    this.carrier = traceContext(span);
  }

  within<T>(work: () => T): T {
    return this.active(this.span, work);
  }
}

/** A `chat {model}` span: one turn, one model call; the self-call carries it as headers. */
export class TurnSpan extends CallSpan {
  succeeded(reply: TurnResult): void {
    this.span.setAttributes({
      'gen_ai.response.id': boundedAttribute(reply.id),
      'gen_ai.response.model': boundedAttribute(reply.model),
      'gen_ai.response.finish_reasons': [reply.stop ?? 'stop'],
      ...usageAttributes(reply.usage),
      ...(this.captureContent ? { 'gen_ai.output.messages': outputMessages(reply) } : {}),
    });
    this.span.end();
  }

  failed(type: string): void {
    failed(this.span, type);
    this.span.end();
  }
}

/**
 * An `execute_tool {tool}` span: one tool call, from the model's request to the text the model reads; an MCP call
 * carries it in `params._meta`.
 */
export class ToolSpan extends CallSpan {
  /** The call went out to Trellis: on an MCP Trellis it is a `tools/call` in the session named. */
  reached(trellis: Trellis): void {
    if (!trellis.mcpSession) return;
    const session = trellis.mcpSession();
    this.span.setAttributes({
      'mcp.method.name': 'tools/call',
      ...(session === undefined ? {} : { 'mcp.session.id': session }),
    });
  }

  /** `pending`: the call waits for a person's approval, `asks`: for their input; neither is a failure */
  ended(kind: string, text: string): void {
    if (kind === 'pending') this.span.setAttribute('agent_loop.approval', 'asked');
    else if (kind === 'asks') this.span.setAttribute('agent_loop.input', 'asked');
    else if (kind !== 'ok') failed(this.span, kind);
    if (this.captureContent) this.span.setAttribute('gen_ai.tool.call.result', text);
    this.span.end();
  }
}

/** The `invoke_agent {binding}` span of one loop, and the turns and tool calls under it. */
export class LoopSpan {
  private readonly active: Within;

  constructor(
    private readonly api: typeof OtelApi,
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
    private readonly captureContent: boolean,
  ) {
    this.active = (child, work) => api.context.with(api.trace.setSpan(context, child), work);
  }

  /** `model`: the client's, so the span name carries it bounded and plain, the attribute whole up to a bound */
  turn(model: string, messages: readonly unknown[]): TurnSpan {
    const attributes: Attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': boundedAttribute(model) };
    if (this.captureContent) attributes['gen_ai.input.messages'] = inputMessages(messages);
    return new TurnSpan(
      this.tracer.startSpan(
        model === '' ? 'chat' : `chat ${namePart(model)}`,
        { kind: CLIENT, attributes },
        this.context,
      ),
      this.captureContent,
      this.active,
    );
  }

  /** The tool's name and the call's id are the model's: bounded like the client's model name. `under`: its program. */
  tool(call: WireCall, under?: ToolSpan): ToolSpan {
    const name = String(call.name);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': boundedAttribute(name),
      'gen_ai.tool.call.id': boundedAttribute(call.id),
      'gen_ai.tool.type': 'function',
    };
    if (this.captureContent) attributes['gen_ai.tool.call.arguments'] = argumentsText(call);
    return new ToolSpan(
      this.tracer.startSpan(
        `execute_tool ${namePart(name)}`,
        { kind: INTERNAL, attributes },
        under ? this.api.trace.setSpan(this.context, under.span) : this.context,
      ),
      this.captureContent,
      this.active,
    );
  }

  /** an `agent_loop.approval` event: a call handed to a person for approval, or their answer */
  approval(tool: string, outcome: string): void {
    this.span.addEvent('agent_loop.approval', {
      'gen_ai.tool.name': boundedAttribute(tool),
      'agent_loop.approval': outcome,
    });
  }

  /** an `agent_loop.input` event: a question a tool asked the person, or how it came back */
  input(tool: string, outcome: string): void {
    this.span.addEvent('agent_loop.input', {
      'gen_ai.tool.name': boundedAttribute(tool),
      'agent_loop.input': outcome,
    });
  }

  /** `stop` is the loop's stop reason, or `fallthrough` / `client_gone`; a loop that gave up is an error. */
  end(stop: string, stats: { turns: number; toolCalls: number }, usage: TokenUsage | undefined): void {
    this.span.setAttributes({
      'agent_loop.stop': stop,
      'agent_loop.turns': stats.turns,
      'agent_loop.tool_calls': stats.toolCalls,
      ...usageAttributes(usage),
    });
    if (stop === 'fallthrough' || stop === 'upstream_error') failed(this.span, stop);
    this.span.end();
  }
}
