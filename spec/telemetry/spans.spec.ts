import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { LoopSpan } from '../../lib/telemetry/spans';
import type { Trellis } from '../../lib/types';
import type { TurnResult, WireCall } from '../../lib/loop/turn-result';

// SpanKind and SpanStatusCode values
const INTERNAL = 0;
const CLIENT = 2;
const UNSET = 0;
const ERROR = 2;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('spans.spec');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => api.context.setGlobalContextManager(contextManager.enable()));
afterAll(async () => {
  api.context.disable();
  await provider.shutdown();
});
afterEach(() => exporter.reset());

function loopSpan(captureContent = false): LoopSpan {
  const span = tracer.startSpan('invoke_agent notes');
  return new LoopSpan(api, tracer, span, api.trace.setSpan(api.ROOT_CONTEXT, span), captureContent);
}

const finished = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0];
};

const reply: TurnResult = {
  text: 'It is 08:00.',
  calls: [],
  output: {},
  usage: { input: 12, output: 5, total: 17 },
  stop: 'stop',
  id: 'chatcmpl-1',
  model: 'gpt-4o',
  reply: {},
};
const call: WireCall = { id: 'call_1', name: 'notes_read', arguments: '{"id":"groceries"}', index: 0 };

describe('LoopSpan', () => {
  it("opens a nested call's execute_tool span under the program's, given it", () => {
    const loop = loopSpan();
    const program = loop.tool({ id: 'run_1', name: 'run_code', arguments: '{"code":""}', index: 0 });
    loop.tool(call, program).ended('ok', '');
    program.ended('ok', '');
    expect(finished('execute_tool notes_read').parentSpanContext?.spanId).toBe(
      finished('execute_tool run_code').spanContext().spanId,
    );
  });

  it('opens a chat span per turn under the loop span, whose carrier names it as parent', () => {
    const loop = loopSpan();
    const turn = loop.turn('gpt-4o', [{ role: 'user', content: 'time?' }]);
    turn.succeeded(reply);
    loop.end('final', { turns: 1, toolCalls: 0 }, reply.usage);
    const chat = finished('chat gpt-4o');
    const invoke = finished('invoke_agent notes');
    expect(chat.kind).toBe(CLIENT);
    expect(chat.parentSpanContext?.spanId).toBe(invoke.spanContext().spanId);
    expect(turn.carrier).toEqual({ traceparent: `00-${chat.spanContext().traceId}-${chat.spanContext().spanId}-01` });
    expect(chat.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.model': 'gpt-4o',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(invoke.attributes).toEqual({
      'agent_loop.stop': 'final',
      'agent_loop.turns': 1,
      'agent_loop.tool_calls': 0,
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(invoke.status.code).toBe(UNSET);
  });

  it('names a turn with a model name that is no plain name by a bounded, plain part; an empty one just chat', () => {
    const loop = loopSpan();
    loop.turn('my model\n'.repeat(20), []).failed('upstream_error');
    loop.turn('', []).failed('deadline');
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      `chat ${'my_model_'.repeat(20).slice(0, 64)}`,
      'chat',
    ]);
  });

  it('marks a failed turn with its error type', () => {
    loopSpan().turn('gpt-4o', []).failed('upstream_error');
    const chat = finished('chat gpt-4o');
    expect(chat.attributes['error.type']).toBe('upstream_error');
    expect(chat.status.code).toBe(ERROR);
  });

  it('records the conversation and the reply only with captureContent', () => {
    const messages = [{ role: 'user', content: 'time?' }];
    loopSpan(false).turn('quiet', messages).succeeded(reply);
    loopSpan(true).turn('loud', messages).succeeded(reply);
    expect(Object.keys(finished('chat quiet').attributes).filter((key) => key.includes('messages'))).toEqual([]);
    const loud = finished('chat loud').attributes;
    expect(JSON.parse(String(loud['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'time?' }] },
    ]);
    expect(JSON.parse(String(loud['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'It is 08:00.' }], finish_reason: 'stop' },
    ]);
  });

  it('runs the call with its span active, so instrumented clients underneath are its children', () => {
    const turn = loopSpan().turn('gpt-4o', []);
    const active = turn.within(() => api.trace.getActiveSpan());
    turn.succeeded(reply);
    expect(active?.spanContext().spanId).toBe(finished('chat gpt-4o').spanContext().spanId);
  });

  it('opens an execute_tool span per tool call; an MCP Trellis names its session', () => {
    const tool = loopSpan().tool(call);
    const mcp = { mcpSession: () => 'session-7' } as unknown as Trellis;
    tool.reached(mcp);
    tool.ended('ok', 'groceries: milk');
    const span = finished('execute_tool notes_read');
    expect(span.kind).toBe(INTERNAL);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notes_read',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'mcp.method.name': 'tools/call',
      'mcp.session.id': 'session-7',
    });
    expect(span.status.code).toBe(UNSET);
  });

  it('says nothing of MCP for a Trellis that is not one', () => {
    const tool = loopSpan().tool(call);
    tool.reached({ listTools: async () => [], callTool: async () => ({ content: [] }) });
    tool.ended('ok', '');
    expect(Object.keys(finished('execute_tool notes_read').attributes).filter((key) => key.startsWith('mcp.'))).toEqual(
      [],
    );
  });

  it('marks a failed tool call with its outcome, and a call waiting for approval as asked, no failure', () => {
    const loop = loopSpan();
    loop.tool({ ...call, name: 'slow' }).ended('timeout', "tool error: 'slow' timed out after 30s");
    loop.tool({ ...call, name: 'rm' }).ended('pending', '');
    const slow = finished('execute_tool slow');
    expect([slow.attributes['error.type'], slow.status.code]).toEqual(['timeout', ERROR]);
    const rm = finished('execute_tool rm');
    expect([rm.attributes['agent_loop.approval'], rm.attributes['error.type'], rm.status.code]).toEqual([
      'asked',
      undefined,
      UNSET,
    ]);
  });

  it('records the arguments and the result only with captureContent', () => {
    loopSpan(true)
      .tool({ ...call, name: 'loud', arguments: { id: 'x' } })
      .ended('ok', 'the result');
    loopSpan(false)
      .tool({ ...call, name: 'quiet' })
      .ended('ok', 'the result');
    expect(finished('execute_tool loud').attributes).toEqual(
      expect.objectContaining({ 'gen_ai.tool.call.arguments': '{"id":"x"}', 'gen_ai.tool.call.result': 'the result' }),
    );
    expect(
      Object.keys(finished('execute_tool quiet').attributes).filter(
        (key) => key.startsWith('gen_ai.tool.call.') && key !== 'gen_ai.tool.call.id',
      ),
    ).toEqual([]);
  });

  it('adds an approval event to the loop span', () => {
    const loop = loopSpan();
    loop.approval('rm', 'granted');
    loop.end('final', { turns: 2, toolCalls: 1 }, undefined);
    expect(finished('invoke_agent notes').events.map((event) => [event.name, event.attributes])).toEqual([
      ['agent_loop.approval', { 'gen_ai.tool.name': 'rm', 'agent_loop.approval': 'granted' }],
    ]);
  });

  it.each(['fallthrough', 'upstream_error'])('marks a loop that ended in %s as an error', (stop) => {
    loopSpan().end(stop, { turns: 1, toolCalls: 0 }, undefined);
    const invoke = finished('invoke_agent notes');
    expect([invoke.attributes['error.type'], invoke.status.code]).toEqual([stop, ERROR]);
  });
});
