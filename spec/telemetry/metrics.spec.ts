import http from 'node:http';
import { Registry } from 'prom-client';
import { agentLoop } from '../../lib';
import { AgentLoopError } from '../../lib/errors';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startMessagesServer, type MessagesServer } from '../../fixtures/messages-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import { localTrellis } from '../../lib/trellis/local';
import { ask, mcpRig } from '../e2e/mcp-gateway';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const notes = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'clock_now'],
};

async function scrape(baseURL: string): Promise<{ status: number; type: string | null; text: string }> {
  const reply = await fetch(new URL('/metrics', baseURL));
  return { status: reply.status, type: reply.headers.get('content-type'), text: await reply.text() };
}

/** the exposition's sample lines, without the histograms' buckets */
const samples = (text: string) =>
  text.split('\n').filter((line) => line !== '' && !line.startsWith('#') && !line.includes('_bucket{'));

describe('metrics: prom-client, served at /metrics by createGateway', () => {
  const rig = mcpRig();

  it('counts loops by stop reason, turns, tool calls by outcome, judge verdicts, and times turns and tool calls', async () => {
    const registry = new Registry();
    const judge = { evaluate: async () => ({ action: 'allow' as const }) };
    const script = [
      {
        toolCalls: [
          { id: 'c1', name: 'notes_read', arguments: { id: 'welcome' } },
          { id: 'c2', name: 'clock_now' },
          { id: 'c3', name: 'rm_rf' },
        ],
      },
      { content: 'It is noon.' },
    ];
    const { client } = await rig.gateway(script, { bindings: [notes], metrics: { registry }, judge });
    await client.chat.completions.create(ask());
    rig.model.setScript([{ status: 500 }]);
    await expect(client.chat.completions.create(ask())).rejects.toThrow('500');

    const { status, type, text } = await scrape(client.baseURL);
    expect(status).toBe(200);
    expect(type).toBe(registry.contentType);
    expect(text).toContain('# HELP agent_loop_loops_total Loops ended, by binding, wire and stop reason.');
    // timings vary: their sums are left out; the tool calls run in parallel, so their series come in any order
    const lines = samples(text).map((line) => line.replace(/_sum(\{[^}]*\}) [0-9.e-]+$/, '_sum$1 <sum>'));
    const expected = [
      'agent_loop_loops_total{binding="notes",wire="chat",stop="final"} 1',
      'agent_loop_loops_total{binding="notes",wire="chat",stop="fallthrough"} 1',
      'agent_loop_loops_in_flight{binding="notes",wire="chat"} 0',
      'agent_loop_turns_per_loop_sum{binding="notes",wire="chat"} <sum>',
      'agent_loop_turns_per_loop_count{binding="notes",wire="chat"} 2',
      'agent_loop_turn_duration_seconds_sum{binding="notes",wire="chat",outcome="ok"} <sum>',
      'agent_loop_turn_duration_seconds_count{binding="notes",wire="chat",outcome="ok"} 2',
      'agent_loop_turn_duration_seconds_sum{binding="notes",wire="chat",outcome="error"} <sum>',
      'agent_loop_turn_duration_seconds_count{binding="notes",wire="chat",outcome="error"} 1',
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="notes_read",outcome="refused"} 1',
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="clock_now",outcome="ok"} 1',
      'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="_unknown",outcome="invalid"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",wire="chat",tool="notes_read",outcome="refused"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",wire="chat",tool="notes_read",outcome="refused"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",wire="chat",tool="clock_now",outcome="ok"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",wire="chat",tool="clock_now",outcome="ok"} 1',
      'agent_loop_tool_call_duration_seconds_sum{binding="notes",wire="chat",tool="_unknown",outcome="invalid"} <sum>',
      'agent_loop_tool_call_duration_seconds_count{binding="notes",wire="chat",tool="_unknown",outcome="invalid"} 1',
      'agent_loop_judge_verdicts_total{binding="notes",surface="tool_call",action="allow"} 1',
      'agent_loop_judge_verdicts_total{binding="notes",surface="context",action="allow"} 1',
      'agent_loop_tokens_total{binding="notes",wire="chat",type="input"} 20',
      'agent_loop_tokens_total{binding="notes",wire="chat",type="output"} 10',
      'agent_loop_key_budget_unenforced_total 0',
    ];
    expect(lines.sort()).toEqual(expected.sort());
    expect(samples(text)).toContain('agent_loop_turns_per_loop_sum{binding="notes",wire="chat"} 3');
  });

  it("counts a judge that failed as action 'error', under a prefix of the app's choosing", async () => {
    const registry = new Registry();
    const judge = { evaluate: () => Promise.reject(new Error('policy store offline')) };
    const { client } = await rig.gateway([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'Blocked.' }], {
      bindings: [notes],
      metrics: { registry, prefix: 'gw_' },
      judge,
    });
    await client.chat.completions.create(ask());
    const { text } = await scrape(client.baseURL);
    expect(samples(text)).toContain('gw_judge_verdicts_total{binding="notes",surface="tool_call",action="error"} 1');
    expect(samples(text)).toContain(
      'gw_tool_calls_total{binding="notes",wire="chat",tool="clock_now",outcome="blocked"} 1',
    );
  });

  it("is on by default in createGateway (prom-client's global registry) and off with metrics: false", async () => {
    const on = await rig.gateway([{ content: 'hi' }], { bindings: [notes] });
    await on.client.chat.completions.create(ask());
    expect(samples((await scrape(on.client.baseURL)).text)).toContain(
      'agent_loop_loops_total{binding="notes",wire="chat",stop="final"} 1',
    );
    const off = await rig.gateway([{ content: 'hi' }], { bindings: [notes], metrics: false });
    expect((await scrape(off.client.baseURL)).status).toBe(404);
  });

  it('lets two middlewares share one registry', () => {
    const registry = new Registry();
    const options = {
      bindings: [{ ...notes, trellis: { listTools: async () => [], callTool: async () => ({ content: [] }) } }],
      metrics: { registry },
      logger: memoryLogger('error').logger,
    };
    const first = agentLoop(options);
    const second = agentLoop(options);
    expect(first.metrics).toBe(registry);
    expect(second.metrics).toBe(registry);
    expect(registry.getMetricsAsArray().map((metric) => (metric as unknown as { name: string }).name)).toHaveLength(14);
  });

  it.each([
    [
      { prefix: 'agent-loop' },
      'agentLoop: option \'metrics.prefix\' is "agent-loop"; with value "agent-loop" fails to match the Prometheus metric name pattern; it must be a Prometheus metric name prefix (letters, digits, _ and :), e.g. prefix: \'agent_loop_\'.',
    ],
    [
      { registry: {} },
      "agentLoop: option 'metrics.registry' is {}; it must be a prom-client Registry, e.g. registry: new Registry() (import { Registry } from 'prom-client').",
    ],
    [
      true,
      "agentLoop: option 'metrics' is true; it must be false or { registry?: a prom-client Registry, prefix?: 'agent_loop_' }, e.g. metrics: { prefix: 'agent_loop_' }.",
    ],
    [
      { tracing: 'yes' },
      'agentLoop: option \'telemetry.tracing\' is "yes"; must be a boolean; it must be { tracing?: boolean, captureContent?: boolean }, e.g. telemetry: { captureContent: false }.',
    ],
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
    model = await startModelServer((sent) =>
      sent.tools ? new Promise((resolve) => (release = () => resolve({ content: 'noon' }))) : { content: 'plain' },
    );
  });
  afterEach(async () => {
    release();
    await server?.close();
    await model.close();
  });

  it('counts a loop whose client went away as client_gone', async () => {
    const registry = new Registry();
    const { app } = buildGateway(model.url, {
      trellis,
      bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
      metrics: { registry },
    });
    server = await listen(app);
    const req = http.request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify(body));
    await eventually(() => expect(model.requests).toHaveLength(1));
    req.destroy();
    await eventually(async () =>
      expect(samples(await registry.metrics())).toContain(
        'agent_loop_loops_total{binding="clock",wire="chat",stop="client_gone"} 1',
      ),
    );
    expect(samples(await registry.metrics())).toContain('agent_loop_loops_in_flight{binding="clock",wire="chat"} 0');
  });

  it('counts overloaded and shutdown among the loops, shows the parked loop in flight, and is not ready while closing', async () => {
    const registry = new Registry();
    const { app, loop } = buildGateway(model.url, {
      trellis,
      bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
      maxConcurrentLoops: 1,
      metrics: { registry },
    });
    server = await listen(app);
    const parked = server.client.chat.completions.create(body);
    await eventually(() => expect(model.requests).toHaveLength(1));
    expect(samples(await registry.metrics())).toContain('agent_loop_loops_in_flight{binding="clock",wire="chat"} 1');
    await server.client.chat.completions.create(body);

    const closing = loop.close();
    await server.client.chat.completions.create(body);
    await expect(loop.ready()).resolves.toEqual({ 'agent-loop': 'shutting down' });
    release();
    await parked;
    await closing;
    const lines = samples(await registry.metrics());
    expect(lines.filter((line) => line.startsWith('agent_loop_loops_'))).toEqual([
      'agent_loop_loops_total{binding="clock",wire="chat",stop="overloaded"} 1',
      'agent_loop_loops_total{binding="clock",wire="chat",stop="shutdown"} 1',
      'agent_loop_loops_total{binding="clock",wire="chat",stop="final"} 1',
      'agent_loop_loops_in_flight{binding="clock",wire="chat"} 0',
    ]);
  });
});

describe('metrics carry the wire the loop ran on', () => {
  const trellis = localTrellis([{ name: 'clock_now', handler: () => 'noon' }]);
  const clock = { name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' };
  let responses: ResponsesServer;
  let messages: MessagesServer;
  const servers: Listening[] = [];
  beforeEach(async () => {
    responses = await startResponsesServer([
      { calls: [{ callId: 'c1', name: 'clock_now' }], usage: { input_tokens: 5, output_tokens: 1 } },
      { text: 'Noon.', usage: { input_tokens: 7, output_tokens: 2 } },
    ]);
    messages = await startMessagesServer([
      { toolUses: [{ id: 'toolu_1', name: 'clock_now' }], usage: { input_tokens: 3, output_tokens: 1 } },
      { text: 'Noon.', usage: { input_tokens: 4, output_tokens: 2 } },
    ]);
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    await responses.close();
    await messages.close();
  });

  it('labels a Responses loop wire="responses" and a Messages loop wire="messages"', async () => {
    const registry = new Registry();
    const viaResponses = await listen(
      buildGateway(responses.url, { trellis, bindings: [clock], metrics: { registry } }).app,
    );
    const viaMessages = await listen(
      buildGateway(messages.url, { trellis, bindings: [clock], metrics: { registry } }).app,
    );
    servers.push(viaResponses, viaMessages);
    await new OpenAI({ baseURL: `${viaResponses.url}/v1`, apiKey: 'k', maxRetries: 0 }).responses.create({
      model: 'agent',
      input: 'time?',
    });
    await new Anthropic({ baseURL: viaMessages.url, apiKey: 'k', maxRetries: 0 }).messages.create({
      model: 'agent',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'time?' }],
    });

    const lines = samples(await registry.metrics()).filter((line) => !line.includes('_sum{'));
    for (const wire of ['responses', 'messages']) {
      expect(lines).toEqual(
        expect.arrayContaining([
          `agent_loop_loops_total{binding="clock",wire="${wire}",stop="final"} 1`,
          `agent_loop_loops_in_flight{binding="clock",wire="${wire}"} 0`,
          `agent_loop_turns_per_loop_count{binding="clock",wire="${wire}"} 1`,
          `agent_loop_turn_duration_seconds_count{binding="clock",wire="${wire}",outcome="ok"} 2`,
          `agent_loop_tool_calls_total{binding="clock",wire="${wire}",tool="clock_now",outcome="ok"} 1`,
          `agent_loop_tool_call_duration_seconds_count{binding="clock",wire="${wire}",tool="clock_now",outcome="ok"} 1`,
        ]),
      );
    }
    expect(lines).toContain('agent_loop_tokens_total{binding="clock",wire="responses",type="input"} 12');
    expect(lines).toContain('agent_loop_tokens_total{binding="clock",wire="messages",type="output"} 3');
    expect(lines.filter((line) => line.includes('wire="chat"'))).toEqual([]);
  });
});
