import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { buildGateway, expressVersions } from '../helpers/gateway';

const notes = localTrellis([
  { name: 'notes_open', description: 'Open the notebook', handler: () => 'notes: a, b' },
  {
    name: 'notes_read',
    description: 'Read one note',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    handler: (args) => `note ${String(args.id)}: buy milk`,
  },
  { name: 'broken', handler: () => Promise.reject(new Error('Trellis unreachable (ECONNREFUSED)')) },
  {
    name: 'stuck',
    handler: (_args, { signal }) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  },
]);

const binding = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'broken', 'stuck'],
};
const ask = (content = 'what is in my notes?', extra: Record<string, unknown> = {}) => ({
  model: 'agent-1',
  messages: [{ role: 'user', content }],
  ...extra,
});
const toolMessages = (model: ModelServer, index: number) =>
  model.requests[index].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);

describe.each(expressVersions)('the loop under %s', (_name, express) => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(() => model.close());

  const gateway = (options: Record<string, unknown> = {}) =>
    buildGateway(model.url, { trellis: notes, bindings: [binding], ...options }, express);

  it('walks the hierarchy: the gate refuses the child, the model self-corrects, the answer comes back with turns summed', async () => {
    model.setScript([
      {
        toolCalls: [{ id: 'c1', name: 'notes_read', arguments: { id: 'a' } }],
        usage: { prompt_tokens: 10, completion_tokens: 1 },
      },
      {
        content: 'Opening first.',
        toolCalls: [{ id: 'c2', name: 'notes_open' }],
        usage: { prompt_tokens: 20, completion_tokens: 2 },
      },
      {
        toolCalls: [{ id: 'c3', name: 'notes_read', arguments: { id: 'a' } }],
        usage: { prompt_tokens: 30, completion_tokens: 3 },
      },
      { content: 'Note a says: buy milk.', usage: { prompt_tokens: 40, completion_tokens: 4 } },
    ]);
    const { app } = gateway();
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);

    expect(res.body.object).toBe('chat.completion');
    expect(res.body.choices[0].message).toEqual({
      role: 'assistant',
      content: 'Opening first.\n\nNote a says: buy milk.',
    });
    expect(res.body.choices[0].finish_reason).toBe('stop');
    expect(res.body.usage).toEqual({ prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 });
    expect(res.headers['x-agent-loop-turns']).toBe('4');
    expect(res.headers['x-agent-loop-tool-calls']).toBe('3');
    expect(res.headers['x-agent-loop-stop']).toBe('final');
    expect(model.requests).toHaveLength(4);
    expect(model.requests[0].body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'notes_open', description: 'Open the notebook', parameters: { type: 'object' } },
      },
      {
        type: 'function',
        function: {
          name: 'notes_read',
          description: 'Read one note',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
        },
      },
      { type: 'function', function: { name: 'broken', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'stuck', parameters: { type: 'object' } } },
    ]);
    expect(toolMessages(model, 1)).toEqual(["⛔ 'notes_read' is locked: call 'notes_open' first."]);
    expect(toolMessages(model, 3)).toEqual([
      "⛔ 'notes_read' is locked: call 'notes_open' first.",
      'notes: a, b',
      'note a: buy milk',
    ]);
    const last = model.requests[3].body.messages;
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
    expect(last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
  });

  it('turns a transport error, an unknown tool and bad arguments into readable tool errors and keeps going', async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'a', name: 'broken' },
          { id: 'b', name: 'rm_rf' },
          { id: 'c', name: 'notes_open', arguments: '{"oops' },
          { id: 'd', name: 'notes_open', arguments: '[1,2]' },
        ],
      },
      { content: 'done' },
    ]);
    const res = await request(gateway().app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(res.body.choices[0].message.content).toBe('done');
    const [broken, unknown, badJson, notObject] = toolMessages(model, 1) as string[];
    expect(broken).toBe('tool error: Trellis unreachable (ECONNREFUSED)');
    expect(unknown).toBe("tool error: unknown tool 'rm_rf'; valid tools: notes_open, notes_read, broken, stuck");
    expect(badJson).toMatch(/^tool error: arguments for 'notes_open' are not valid JSON \(/);
    expect(notObject).toBe("tool error: arguments for 'notes_open' must be a JSON object, got an array");
  });

  it('times a stuck tool out after toolTimeoutSec with the exact text', async () => {
    model.setScript([{ toolCalls: [{ id: 's', name: 'stuck' }] }, { content: 'gave up on it' }]);
    const { app } = gateway({ bindings: [{ ...binding, toolTimeoutSec: 1 }] });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(toolMessages(model, 1)).toEqual(["tool error: 'stuck' timed out after 1s"]);
    expect(res.body.choices[0].message.content).toBe('gave up on it');
  });

  it('runs only maxToolCallsPerTurn calls and rewrites the assistant message to list only those', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `k${i}`, name: 'notes_open' }));
    model.setScript([{ toolCalls: calls }, { content: 'ok' }]);
    const { app } = gateway({ maxToolCallsPerTurn: 3 });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    const carried = model.requests[1].body.messages[1] as { tool_calls: { id: string }[] };
    expect(carried.tool_calls.map((call) => call.id)).toEqual(['k0', 'k1', 'k2']);
    expect(model.requests[1].body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'k0',
      'k1',
      'k2',
    ]);
    expect(res.headers['x-agent-loop-tool-calls']).toBe('3');
  });

  it('gives a repeated tool call id (in the turn, or from an earlier turn) an id of its own, so each call has one answer', async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'dup', name: 'notes_open' },
          { id: 'dup', name: 'broken' },
        ],
      },
      { toolCalls: [{ id: 'dup', name: 'notes_open' }] },
      { content: 'ok' },
    ]);
    await request(gateway().app).post('/v1/chat/completions').send(ask()).expect(200);
    const messages = model.requests[2].body.messages as {
      role: string;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
    }[];
    const called = messages.flatMap((m) => (m.tool_calls ?? []).map((call) => call.id));
    expect(called).toEqual([
      'dup',
      expect.stringMatching(/^call_[0-9a-f]{16}_1_1$/),
      expect.stringMatching(/^call_[0-9a-f]{16}_2_0$/),
    ]);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(called);
    expect(toolMessages(model, 2)).toEqual([
      'notes: a, b',
      'tool error: Trellis unreachable (ECONNREFUSED)',
      'notes: a, b',
    ]);
  });

  it("stops at maxTurns model calls with every turn's text and a note naming the budget", async () => {
    model.setScript(() => ({ content: 'still looking', toolCalls: [{ name: 'notes_open' }] }));
    const { app } = gateway({ bindings: [{ ...binding, maxTurns: 3 }] });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(model.requests).toHaveLength(3);
    expect(res.headers['x-agent-loop-stop']).toBe('max_turns');
    expect(res.body.choices[0].message.content).toBe(
      'still looking\n\nstill looking\n\nstill looking\n\n[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 3).',
    );
    expect(res.body.choices[0].message.tool_calls).toBeUndefined();
  });

  it('stops on the total time budget, cutting a running tool call short', async () => {
    model.setScript([{ content: 'let me check', toolCalls: [{ name: 'stuck' }] }, { content: 'never reached' }]);
    const { app } = gateway({ totalBudgetSec: 1 });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(model.requests).toHaveLength(1);
    expect(res.headers['x-agent-loop-stop']).toBe('deadline');
    expect(res.body.choices[0].message.content).toBe(
      'let me check\n\n[agent-loop] Stopped before a final answer: the total time budget ran out (totalBudgetSec = 1s).',
    );
  });

  describe('a parent the client history says ran', () => {
    const history = [
      { role: 'user', content: 'open my notes' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'h1', type: 'function', function: { name: 'notes_open', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'h1', content: 'notes: a, b' },
      { role: 'user', content: 'now read b' },
    ];
    const script = [
      { content: 'unused: the history already holds one assistant turn' },
      { toolCalls: [{ id: 'r', name: 'notes_read', arguments: { id: 'b' } }] },
      { content: 'read it' },
    ];

    it('does not unlock its children by default: the client wrote it, not the loop', async () => {
      model.setScript(script);
      await request(gateway().app)
        .post('/v1/chat/completions')
        .send({ model: 'agent-1', messages: history })
        .expect(200);
      expect(toolMessages(model, 1)).toEqual(['notes: a, b', "⛔ 'notes_read' is locked: call 'notes_open' first."]);
    });

    it('unlocks them with trustClientHistory: true', async () => {
      model.setScript(script);
      await request(gateway({ trustClientHistory: true }).app)
        .post('/v1/chat/completions')
        .send({ model: 'agent-1', messages: history })
        .expect(200);
      expect(toolMessages(model, 1)).toEqual(['notes: a, b', 'note b: buy milk']);
    });
  });

  it("hands a call to one of the client's own tools back to the client", async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'mine', name: 'notes_open' },
          { id: 'yours', name: 'get_location' },
        ],
      },
    ]);
    const clientTool = { type: 'function', function: { name: 'get_location', parameters: { type: 'object' } } };
    const res = await request(gateway().app)
      .post('/v1/chat/completions')
      .send(ask('where am I', { tools: [clientTool] }))
      .expect(200);
    expect(res.body.choices[0].finish_reason).toBe('tool_calls');
    expect(res.body.choices[0].message.tool_calls.map((call: { id: string }) => call.id)).toEqual(['yours']);
    expect(model.requests[0].body.tools).toHaveLength(5);
  });

  it("sends no tools key at all when Trellis lists none of the binding's tools", async () => {
    model.setScript([{ content: 'no tools here' }]);
    const { app } = gateway({ bindings: [{ ...binding, hierarchy: ['ghost'] }] });
    const res = await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(res.body.choices[0].message.content).toBe('no tools here');
    expect(model.requests[0].body).not.toHaveProperty('tools');
  });

  it('applies settings changed at run time', async () => {
    model.setScript(() => ({ toolCalls: [{ name: 'notes_open' }, { name: 'notes_open' }] }));
    const { app, loop } = gateway();
    expect(loop.settings.update({ defaultMaxTurns: 2, maxToolCallsPerTurn: 1 })).toEqual({
      totalBudgetSec: 120,
      defaultMaxTurns: 2,
      maxToolCallsPerTurn: 1,
      bindings: { notes: { maxTurns: 6, toolTimeoutSec: 30 } },
    });
    await request(app).post('/v1/chat/completions').send(ask()).expect(200);
    expect(model.requests).toHaveLength(6);
  });
});
