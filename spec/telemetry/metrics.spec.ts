import http from 'node:http';
import { Registry } from 'prom-client';
import { agentLoop } from '../../lib';
import { AgentLoopError } from '../../lib/errors';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import { ask, mcpRig } from '../e2e/mcp-gateway';
import { buildGateway, memoryLogger } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const notes = { name: 'notes', match: { model: 'agent-*' }, hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now'] };

async function scrape(baseURL: string): Promise<{ status: number; type: string | null; text: string }> {
  const reply = await fetch(new URL('/metrics', baseURL));
  return { status: reply.status, type: reply.headers.get('content-type'), text: await reply.text() };
}

/** the exposition's sample lines, without the histograms' buckets */
const samples = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#') && !line.includes('_bucket{'));

describe('metrics: prom-client, served at /metrics by createGateway', () => {
  const rig = mcpRig();

  it('counts loops by stop reason, turns, tool calls by outcome, judge verdicts, and times turns and tool calls', async () => {
    const registry = new Registry();
    const judge = { evaluate: async () => ({ action: 'allow' as const }) };
    const script = [
      { toolCalls: [{ id: 'c1', name: 'notes_read', arguments: { id: 'welcome' } }, { id: 'c2', name: 'clock_now' }, { id: 'c3', name: 'rm_rf' }] },
      { content: 'It is noon.' },
    ];
    const { client } = await rig.gateway(script, { bindings: [notes], metrics: { registry }, judge });
    await client.chat.completions.create(ask());
    rig.model.setScript([{ status: 500 }]);
    await expect(client.chat.completions.create(ask())).rejects.toThrow('500');

    const { status, type, text } = await scrape(client.baseURL);
    expect(status).toBe(200);
    expect(type).toBe(registry.contentType);
    expect(text).toContain('# HELP agent_loop_loops_total Loops ended, by binding and stop reason.');
    // timings vary: their sums are left out; the tool calls run in parallel, so their series come in any order
    const lines = samples(text).map((line) => line.replace(/_sum(\{[^}]*\}) [0-9.e-]+$/, '_sum$1 <sum>'));
    const expected = [
      'agent_loop_loops_total{binding="notes",stop="final"} 1',
      'agent_loop_loops_total{binding="notes",stop="fallthrough"} 1',
      'agent_loop_loops_in_flight{binding="notes"} 0',
      'agent_loop_turns_per_loop_sum{binding="notes"} <sum>',
      'agent_loop_turns_per_loop_count{binding="notes"} 2',
      'agent_loop_turn_duration_seconds_sum{binding="notes",outcome="ok"} <sum>',
      'agent_loop_turn_duration_seconds_count{binding="notes",outcome="ok"} 2',
      'agent_loop_turn_duration_seconds_sum{binding="notes",outcome="error"} <sum>',
      'agent_loop_turn_duration_seconds_count{binding="notes",outcome="error"} 1',
      'agent_loop_tool_calls_total{binding="notes",tool="notes_read",outcome="refused"} 1',
      'agent_loop_tool_calls_total{binding="notes",tool="clock_now",outcome="ok"} 1',
      'agent_loop_tool_calls_total{binding="notes",tool="_unknown",outcome="invalid"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",tool="notes_read",outcome="refused"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",tool="notes_read",outcome="refused"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",tool="clock_now",outcome="ok"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",tool="clock_now",outcome="ok"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",tool="_unknown",outcome="invalid"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",tool="_unknown",outcome="invalid"} 1',
      'agent_loop_judge_verdicts_total{binding="notes",surface="tool_call",action="allow"} 1',
      'agent_loop_judge_verdicts_total{binding="notes",surface="context",action="allow"} 1',
      'agent_loop_tokens_total{binding="notes",type="input"} 20',
      'agent_loop_tokens_total{binding="notes",type="output"} 10',
    ];
    expect(lines.sort()).toEqual(expected.sort());
    expect(samples(text)).toContain('agent_loop_turns_per_loop_sum{binding="notes"} 3');
  });

  it("counts a judge that failed as action 'error', under a prefix of the app's choosing", async () => {
    const registry = new Registry();
    const judge = { evaluate: () => Promise.reject(new Error('policy store offline')) };
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'Blocked.' }], { bindings: [notes], metrics: { registry, prefix: 'gw_' }, judge });
    await client.chat.completions.create(ask());
    const { text } = await scrape(client.baseURL);
    expect(samples(text)).toContain('gw_judge_verdicts_total{binding="notes",surface="tool_call",action="error"} 1');
    expect(samples(text)).toContain('gw_tool_calls_total{binding="notes",tool="clock_now",outcome="blocked"} 1');
  });

  it("is on by default in createGateway (prom-client's global registry) and off with metrics: false", async () => {
    const on = await rig.gateway([{ content: 'hi' }], { bindings: [notes] });
    await on.client.chat.completions.create(ask());
    expect(samples((await scrape(on.client.baseURL)).text)).toContain('agent_loop_loops_total{binding="notes",stop="final"} 1');
    const off = await rig.gateway([{ content: 'hi' }], { bindings: [notes], metrics: false });
    expect((await scrape(off.client.baseURL)).status).toBe(404);
  });

  it('lets two middlewares share one registry', () => {
    const registry = new Registry();
    const options = { bindings: [{ ...notes, trellis: { listTools: async () => [], callTool: async () => ({ content: [] }) } }], metrics: { registry }, logger: memoryLogger('error').logger };
    const first = agentLoop(options);
    const second = agentLoop(options);
    expect(first.metrics).toBe(registry);
    expect(second.metrics).toBe(registry);
    expect(registry.getMetricsAsArray().map((metric) => (metric as unknown as { name: string }).name)).toHaveLength(9);
  });

  it.each([
    [
      { prefix: 'agent-loop' },
      "agentLoop: option 'metrics.prefix' is \"agent-loop\"; with value \"agent-loop\" fails to match the Prometheus metric name pattern; it must be a Prometheus metric name prefix (letters, digits, _ and :), e.g. prefix: 'agent_loop_'.",
    ],
    [{ registry: {} }, "agentLoop: option 'metrics.registry' is {}; it must be a prom-client Registry, e.g. registry: new Registry() (import { Registry } from 'prom-client')."],
    [true, "agentLoop: option 'metrics' is true; it must be false or { registry?: a prom-client Registry, prefix?: 'agent_loop_' }, e.g. metrics: { prefix: 'agent_loop_' }."],
    [{ tracing: 'yes' }, "agentLoop: option 'telemetry.tracing' is \"yes\"; must be a boolean; it must be { tracing?: boolean, captureContent?: boolean }, e.g. telemetry: { captureContent: false }."],
  ])('refuses %j with a coded error', (value, message) => {
    const options = typeof value === 'object' && 'tracing' in value ? { telemetry: value } : { metrics: value };
    expect(() => agentLoop(options as never)).toThrow(AgentLoopError);
    expect(() => agentLoop(options as never)).toThrow(message);
  });
});

describe('metrics of requests the loop did not take', () => {
  let model: ModelServer;
  let server: Listening | undefined;
  let release: () => void = () => undefined;
  const trellis = localTrellis([{ name: 'clock_now', handler: () => 'noon' }]);
  const body = { model: 'agent', messages: [{ role: 'user' as const, content: 'time?' }] };

  beforeEach(async () => {
    model = await startModelServer((sent) => (sent.tools ? new Promise((resolve) => (release = () => resolve({ content: 'noon' }))) : { content: 'plain' }));
  });
  afterEach(async () => {
    release();
    await server?.close();
    await model.close();
  });

  it('counts a loop whose client went away as client_gone', async () => {
    const registry = new Registry();
    const { app } = buildGateway(model.url, { trellis, bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }], metrics: { registry } });
    server = await listen(app);
    const req = http.request(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(JSON.stringify(body));
    await eventually(() => expect(model.requests).toHaveLength(1));
    req.destroy();
    await eventually(async () => expect(samples(await registry.metrics())).toContain('agent_loop_loops_total{binding="clock",stop="client_gone"} 1'));
    expect(samples(await registry.metrics())).toContain('agent_loop_loops_in_flight{binding="clock"} 0');
  });

  it('counts overloaded and shutdown among the loops, shows the parked loop in flight, and is not ready while closing', async () => {
    const registry = new Registry();
    const { app, loop } = buildGateway(model.url, { trellis, bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }], maxConcurrentLoops: 1, metrics: { registry } });
    server = await listen(app);
    const parked = server.client.chat.completions.create(body);
    await eventually(() => expect(model.requests).toHaveLength(1));
    expect(samples(await registry.metrics())).toContain('agent_loop_loops_in_flight{binding="clock"} 1');
    await server.client.chat.completions.create(body);

    const closing = loop.close();
    await server.client.chat.completions.create(body);
    await expect(loop.ready()).resolves.toEqual({ 'agent-loop': 'shutting down' });
    release();
    await parked;
    await closing;
    const lines = samples(await registry.metrics());
    expect(lines.filter((line) => line.startsWith('agent_loop_loops_'))).toEqual([
      'agent_loop_loops_total{binding="clock",stop="overloaded"} 1',
      'agent_loop_loops_total{binding="clock",stop="shutdown"} 1',
      'agent_loop_loops_total{binding="clock",stop="final"} 1',
      'agent_loop_loops_in_flight{binding="clock"} 0',
    ]);
  });
});
