import diagnostics from 'node:diagnostics_channel';
import type http from 'node:http';
import { context, propagation, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import express from 'express';
import { createGateway } from '../../lib/gateway/gateway';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { ask, mcpRig } from '../e2e/mcp-gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
const notes = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now'],
};
// SpanKind and SpanStatusCode values
const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});
afterEach(() => exporter.reset());

async function spans(count: number): Promise<ReadableSpan[]> {
  await eventually(() => expect(exporter.getFinishedSpans()).toHaveLength(count));
  return [...exporter.getFinishedSpans()].sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
}

const byName = (all: ReadableSpan[], name: string) => all.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const traceparentOf = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe('tracing: OpenTelemetry GenAI spans, continuing the client trace', () => {
  const rig = mcpRig();
  const script = [
    {
      toolCalls: [
        { id: 'c1', name: 'notes_read', arguments: { id: 'welcome' } },
        { id: 'c2', name: 'clock_now' },
      ],
    },
    { content: 'It is noon.' },
  ];

  it('makes invoke_agent > chat and execute_tool spans under the client span, and carries each span on its call', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], metrics: false });
    const { data, response } = await client.chat.completions
      .create(ask('what time is it?'), { headers: { traceparent: TRACEPARENT, 'x-request-id': 'req-42' } })
      .withResponse();
    expect(data.choices[0].message.content).toBe('It is noon.');

    const all = await spans(5);
    expect(all.map((span) => span.name)).toEqual([
      'invoke_agent notes',
      'chat agent-1',
      'execute_tool notes_read',
      'execute_tool clock_now',
      'chat agent-1',
    ]);
    expect(new Set(all.map((span) => span.spanContext().traceId))).toEqual(new Set([TRACE_ID]));
    const [agent, firstTurn, gated, clock, lastTurn] = all;
    const agentId = agent.spanContext().spanId;
    expect(parentOf(agent)).toBe(CLIENT_SPAN);
    expect(all.slice(1).map(parentOf)).toEqual([agentId, agentId, agentId, agentId]);

    expect(agent.kind).toBe(INTERNAL);
    expect(agent.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'notes',
      'gen_ai.request.model': 'agent-1',
      'agent_loop.id': response.headers.get('x-agent-loop-id'),
      'agent_loop.wire': 'chat',
      'agent_loop.stop': 'final',
      'agent_loop.turns': 2,
      'agent_loop.tool_calls': 2,
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(agent.status.code).not.toBe(ERROR);

    expect(firstTurn.kind).toBe(CLIENT);
    expect(firstTurn.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'agent-1',
      'gen_ai.response.id': expect.stringMatching(/^chatcmpl-\d+$/),
      'gen_ai.response.model': 'agent-1',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(lastTurn.attributes['gen_ai.response.id']).toBe(data.id);
    expect(lastTurn.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);

    expect(gated.kind).toBe(INTERNAL);
    expect(gated.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notes_read',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'error.type': 'refused',
    });
    expect(gated.status.code).toBe(ERROR);
    const session = rig.mcp.headers.at(-1)?.['mcp-session-id'];
    expect(typeof session).toBe('string');
    expect(clock.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'clock_now',
      'gen_ai.tool.call.id': 'c2',
      'gen_ai.tool.type': 'function',
      'mcp.method.name': 'tools/call',
      'mcp.session.id': session,
    });

    // Each self-call carries its turn span, the MCP call its tool span; the client's request id rides along.
    expect(rig.model.requests.map((req) => req.headers.traceparent)).toEqual([
      traceparentOf(firstTurn),
      traceparentOf(lastTurn),
    ]);
    expect(rig.model.requests.map((req) => req.headers['x-request-id'])).toEqual(['req-42', 'req-42']);
    expect(rig.mcp.calls).toEqual([{ name: 'clock_now', args: {}, meta: { traceparent: traceparentOf(clock) } }]);
  });

  it('records contents only when telemetry.captureContent is on', async () => {
    const { client } = await rig.gateway(script, {
      bindings: [notes],
      metrics: false,
      telemetry: { captureContent: true },
    });
    await client.chat.completions.create(ask('what time is it?'));
    const [, firstTurn, gated, clock, lastTurn] = await spans(5);

    expect(JSON.parse(String(firstTurn.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'what time is it?' }] },
    ]);
    expect(JSON.parse(String(firstTurn.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'notes_read', arguments: '{"id":"welcome"}' },
          { type: 'tool_call', id: 'c2', name: 'clock_now', arguments: '{}' },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(JSON.parse(String(lastTurn.attributes['gen_ai.input.messages'])).slice(2)).toEqual([
      {
        role: 'tool',
        parts: [
          { type: 'tool_call_response', id: 'c1', response: "⛔ 'notes_read' is locked: call 'notes_open' first." },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c2', response: '2025-01-01T12:00:00.000Z' }] },
    ]);
    expect(gated.attributes['gen_ai.tool.call.arguments']).toBe('{"id":"welcome"}');
    expect(clock.attributes['gen_ai.tool.call.result']).toBe('2025-01-01T12:00:00.000Z');
  });

  it("bounds the client's model name and the model's tool name in span names (64 plain characters) and attributes (256)", async () => {
    const model = `agent-${'m'.repeat(300)} <b>\u202e`;
    const tool = `clock_now${'t'.repeat(1000)}; DROP`;
    const { client } = await rig.gateway(
      [{ toolCalls: [{ id: `c${'9'.repeat(400)}`, name: tool }] }, { content: 'noon' }],
      { bindings: [notes], metrics: false },
    );
    await client.chat.completions.create({ ...ask(), model });

    const all = await spans(4);
    const [turn, call] = ['chat', 'execute_tool'].map((operation) =>
      all.find((span) => span.attributes['gen_ai.operation.name'] === operation)!,
    );
    expect(turn.name).toBe(`chat agent-${'m'.repeat(58)}`);
    expect(turn.attributes['gen_ai.request.model']).toBe(model.slice(0, 256));
    expect(call.name).toBe(`execute_tool clock_now${'t'.repeat(55)}`);
    expect(call.attributes['gen_ai.tool.name']).toBe(tool.slice(0, 256));
    expect(call.attributes['gen_ai.tool.call.id']).toBe(`c${'9'.repeat(255)}`);

    exporter.reset();
    rig.model.setScript([{ content: 'noon' }]);
    await client.chat.completions.create({ ...ask(), model: 'agent-1 <b>\u202e' });
    expect((await spans(2)).map((span) => span.name)).toContain('chat agent-1__b__');
  });

  it('marks a turn that failed and a loop that fell through, with error.type', async () => {
    const { client } = await rig.gateway([{ status: 500 }], { bindings: [notes], metrics: false });
    await expect(client.chat.completions.create(ask())).rejects.toThrow();
    const all = await spans(2);
    expect(all.map((span) => [span.name, span.attributes['error.type'], span.status.code])).toEqual([
      ['invoke_agent notes', 'fallthrough', ERROR],
      ['chat agent-1', 'upstream_error', ERROR],
    ]);
  });

  it("puts each nested call of a code-mode program under the program's execute_tool span", async () => {
    const program = 'await tools.notes_open({});\nreturn await tools.clock_now({});';
    const { client } = await rig.gateway(
      [{ toolCalls: [{ id: 'run_1', name: 'run_code', arguments: { code: program } }] }, { content: 'Noon.' }],
      { bindings: [{ ...notes, codeMode: true }], metrics: false },
    );
    await client.chat.completions.create(ask('what time is it?'));

    const all = await spans(6);
    const [agent] = byName(all, 'invoke_agent notes');
    const [run] = byName(all, 'execute_tool run_code');
    expect(parentOf(run)).toBe(agent.spanContext().spanId);
    expect([...byName(all, 'execute_tool notes_open'), ...byName(all, 'execute_tool clock_now')].map(parentOf)).toEqual(
      [run.spanContext().spanId, run.spanContext().spanId],
    );
  });

  it('makes no span with telemetry.tracing false, and forwards the client trace as it came', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], metrics: false, telemetry: { tracing: false } });
    await client.chat.completions.create(ask(), { headers: { traceparent: TRACEPARENT, tracestate: 'k=v' } });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(rig.model.requests.map((req) => [req.headers.traceparent, req.headers.tracestate])).toEqual([
      [TRACEPARENT, 'k=v'],
      [TRACEPARENT, 'k=v'],
    ]);
    expect(rig.mcp.calls.map((call) => call.meta)).toEqual([undefined]);
  });

  it('makes no span for a loop the sampler leaves out, and forwards the client trace as it came', async () => {
    const sampledOut = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    trace.disable();
    trace.setGlobalTracerProvider(sampledOut);
    try {
      const { client } = await rig.gateway([{ content: 'hi' }], { bindings: [notes], metrics: false });
      await client.chat.completions.create(ask(), { headers: { traceparent: TRACEPARENT } });
    } finally {
      trace.disable();
      trace.setGlobalTracerProvider(provider);
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(rig.model.requests[0].headers.traceparent).toBe(TRACEPARENT);
  });

  it('traces streamed turns the same way', async () => {
    const { client } = await rig.gateway(script, { bindings: [notes], metrics: false });
    const stream = await client.chat.completions.create({ ...ask(), stream: true });
    for await (const _chunk of stream);
    const all = await spans(5);
    const turns = byName(all, 'chat agent-1');
    expect(turns.map((span) => span.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
    expect(turns.map((span) => span.attributes['gen_ai.response.id'])).toEqual([
      expect.stringMatching(/^chatcmpl-\d+$/),
      expect.stringMatching(/^chatcmpl-\d+$/),
    ]);
    expect(rig.model.requests.map((req) => req.headers.traceparent)).toEqual(turns.map(traceparentOf));
  });

  it('continues the trace through a registered propagator, tracestate included', async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const { client } = await rig.gateway([{ content: 'hi' }], { bindings: [notes], metrics: false });
      await client.chat.completions.create(ask(), { headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1' } });
      const [agent, turn] = await spans(2);
      expect(parentOf(agent)).toBe(CLIENT_SPAN);
      expect(rig.model.requests[0].headers).toMatchObject({ traceparent: traceparentOf(turn), tracestate: 'vendor=1' });
    } finally {
      propagation.disable();
    }
  });
});

describe('tracing under an HTTP instrumentation', () => {
  const rig = mcpRig();
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => context.setGlobalContextManager(manager.enable()));
  afterAll(() => context.disable());

  it("parents the loop on the request's active span", async () => {
    rig.model.setScript([{ content: 'hi' }]);
    const gateway = createGateway({
      upstream: { url: rig.model.url },
      trellis: { mcp: { url: rig.mcp.url } },
      bindings: [notes],
      metrics: false,
      logger: memoryLogger('error').logger,
    });
    // one server span per request, as @opentelemetry/instrumentation-http makes: the client's, then the turn's
    const servers: Span[] = [];
    const app = express();
    app.use(function instrumentation(_req, _res, next) {
      const server = trace.getTracer('http').startSpan('POST /v1/chat/completions');
      servers.push(server);
      context.with(trace.setSpan(context.active(), server), next);
    });
    app.use(gateway);
    const { client, close } = await listen(app);
    try {
      await client.chat.completions.create(ask(), { headers: { traceparent: TRACEPARENT } });
      servers[0].end();
      const all = await spans(3);
      const agent = byName(all, 'invoke_agent notes')[0];
      expect(parentOf(agent)).toBe(servers[0].spanContext().spanId);
      expect(servers).toHaveLength(2);
    } finally {
      await close();
      await (gateway.locals.agentLoop as AgentLoopMiddleware).close();
    }
  });

  it('runs each self-call and each MCP call with its own span active, so instrumented HTTP clients nest under it', async () => {
    rig.model.setScript([{ toolCalls: [{ id: 'c1', name: 'clock_now' }] }, { content: 'noon' }]);
    const gateway = createGateway({
      upstream: { url: rig.model.url },
      trellis: { mcp: { url: rig.mcp.url } },
      bindings: [notes],
      metrics: false,
      logger: memoryLogger('error').logger,
    });
    // What an HTTP client instrumentation sees when a request starts: the active span of the code that made it.
    const selfCalls: (string | undefined)[] = [];
    const mcpCalls: (string | undefined)[] = [];
    const activeSpan = () => trace.getSpan(context.active())?.spanContext().spanId;
    const onHttp = ({ request: outgoing }: { request: http.ClientRequest }) =>
      outgoing.getHeader('x-mcp-internal') !== undefined && selfCalls.push(activeSpan());
    const onFetch = ({ request: outgoing }: { request: { method: string; path: string } }) =>
      outgoing.method === 'POST' && outgoing.path === '/mcp' && mcpCalls.push(activeSpan());
    diagnostics.subscribe('http.client.request.start', onHttp as (message: unknown) => void);
    diagnostics.subscribe('undici:request:create', onFetch as (message: unknown) => void);
    const { client, close } = await listen(gateway);
    try {
      await client.chat.completions.create(ask());
      const all = await spans(4);
      expect(selfCalls).toEqual(byName(all, 'chat agent-1').map((span) => span.spanContext().spanId));
      expect(mcpCalls).toContain(byName(all, 'execute_tool clock_now')[0].spanContext().spanId);
    } finally {
      diagnostics.unsubscribe('http.client.request.start', onHttp as (message: unknown) => void);
      diagnostics.unsubscribe('undici:request:create', onFetch as (message: unknown) => void);
      await close();
      await (gateway.locals.agentLoop as AgentLoopMiddleware).close();
    }
  });

  it('marks a call waiting for approval on its execute_tool span (no error) and each approval step as an event on the loop span', async () => {
    rig.mcp.setTool({
      name: 'notes_delete',
      description: 'Delete a note.',
      annotations: { destructiveHint: true },
      handler: () => ({ content: [{ type: 'text', text: 'deleted' }] }),
    });
    const judge = { rules: [{ surface: 'tool_call' as const, tool: 'notes_delete', action: 'ask' as const }] };
    const approve = {
      type: 'function' as const,
      function: { name: 'approve_tool_call', parameters: { type: 'object', properties: {} } },
    };
    const { client } = await rig.gateway(
      [{ toolCalls: [{ id: 'd1', name: 'notes_delete' }] }, { content: 'Deleted.' }],
      { bindings: [{ ...notes, hierarchy: ['notes_delete'] }], metrics: false, judge },
    );
    const first = await client.chat.completions.create({ ...ask('delete it'), tools: [approve] });
    const [agent, , waiting] = await spans(3);
    expect(waiting.name).toBe('execute_tool notes_delete');
    expect(waiting.attributes['agent_loop.approval']).toBe('asked');
    expect(waiting.status.code).not.toBe(ERROR);
    expect(agent.events.map((event) => [event.name, event.attributes])).toEqual([
      ['agent_loop.approval', { 'gen_ai.tool.name': 'notes_delete', 'agent_loop.approval': 'asked' }],
    ]);

    exporter.reset();
    const handed = first.choices[0].message;
    await client.chat.completions.create({
      ...ask('delete it'),
      messages: [
        ask('delete it').messages[0],
        handed,
        { role: 'tool', tool_call_id: handed.tool_calls![0].id, content: '{"approved":true}' },
      ],
      tools: [approve],
    });
    const again = await spans(3);
    expect(
      byName(again, 'invoke_agent notes')[0].events.map((event) => event.attributes?.['agent_loop.approval']),
    ).toEqual(['granted']);
    expect(byName(again, 'execute_tool notes_delete')[0].status.code).not.toBe(ERROR);
  });
});
