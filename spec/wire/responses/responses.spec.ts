import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import express from 'express';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { startResponsesServer, type ResponsesServer, type ResponsesStep } from '../../../fixtures/responses-server';
import { skipWhenInternal } from '../../../lib/self-call/marker';
import { localTrellis } from '../../../lib/trellis/local';
import type { JudgeInput } from '../../../lib/types';
import { buildGateway } from '../../helpers/gateway';
import { listen, type Listening } from '../../helpers/listen';

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
  toolTimeoutSec: 1,
};

type Item = Record<string, unknown>;
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};
const inputOf = (model: ResponsesServer, i: number) => model.requests[i].body.input as Item[];
const outputsOf = (model: ResponsesServer, i: number) =>
  inputOf(model, i)
    .filter((item) => item.type === 'function_call_output')
    .map((item) => item.output);

const WALK = [
  {
    calls: [{ callId: 'c1', name: 'notes_read', arguments: { id: 'a' } }],
    usage: { input_tokens: 10, output_tokens: 1 },
  },
  {
    text: 'Opening first.',
    reasoning: true,
    calls: [{ callId: 'c2', name: 'notes_open' }],
    usage: { input_tokens: 20, output_tokens: 2 },
  },
  {
    reasoning: true,
    calls: [{ callId: 'c3', name: 'notes_read', arguments: { id: 'a' } }],
    usage: { input_tokens: 30, output_tokens: 3 },
  },
  { text: 'Note a says: buy milk.', usage: { input_tokens: 40, output_tokens: 4 } },
];

describe('the loop on OpenAI Responses (POST /v1/responses)', () => {
  let model: ResponsesServer;
  let gateway: Listening;
  let client: OpenAI;
  const start = async (options: Record<string, unknown> = {}) => {
    await gateway?.close();
    gateway = await listen(buildGateway(model.url, { trellis: notes, bindings: [binding], ...options }).app);
    client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: 'client-key',
      organization: 'org-1',
      project: 'proj-1',
      maxRetries: 0,
    });
  };
  beforeEach(async () => {
    model = await startResponsesServer();
    await start();
  });
  afterEach(async () => {
    await gateway.close();
    await model.close();
  });

  it('responses.create: the gate refuses the child, the model self-corrects; one Response, usage summed, the loop headers', async () => {
    model.setScript(WALK);
    const { data, response } = await client.responses
      .create({ model: 'agent-1', input: 'what is in my notes?', instructions: 'Be brief.' })
      .withResponse();

    expect(data.output_text).toBe('Opening first.\n\nNote a says: buy milk.');
    expect(data.output.map((item) => item.type)).toEqual(['message']);
    // the upstream echoed the binding's tools: the client's Response echoes only its own (none)
    expect(data.tools).toEqual([]);
    expect(data.usage).toEqual({ input_tokens: 100, output_tokens: 10, total_tokens: 110 });
    // the loop's id, the one its stream would name from the first event: a client chains on it all the same
    expect(data.id).toBe(`resp_${response.headers.get('x-agent-loop-id')}`);
    expect(response.headers.get('x-agent-loop-turns')).toBe('4');
    expect(response.headers.get('x-agent-loop-tool-calls')).toBe('3');
    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    expect(model.requests).toHaveLength(4);
    const first = model.requests[0];
    expect(first.body.tools).toEqual([
      {
        type: 'function',
        name: 'notes_open',
        description: 'Open the notebook',
        parameters: { type: 'object' },
        strict: false,
      },
      {
        type: 'function',
        name: 'notes_read',
        description: 'Read one note',
        parameters: { type: 'object', properties: { id: { type: 'string' } } },
        strict: false,
      },
      { type: 'function', name: 'broken', parameters: { type: 'object' }, strict: false },
      { type: 'function', name: 'stuck', parameters: { type: 'object' }, strict: false },
    ]);
    expect(first.body.instructions).toBe('Be brief.');
    expect(
      model.requests.every((request) => request.body.instructions === 'Be brief.' && request.body.stream === false),
    ).toBe(true);
    expect(outputsOf(model, 1)).toEqual(["⛔ 'notes_read' is locked: call 'notes_open' first."]);
    expect(outputsOf(model, 3)).toEqual([
      "⛔ 'notes_read' is locked: call 'notes_open' first.",
      'notes: a, b',
      'note a: buy milk',
    ]);
    // each turn carries the whole input: the client's, then every output item whole (reasoning included) and its answers
    expect(inputOf(model, 3).map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'reasoning',
      'message',
      'function_call',
      'function_call_output',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    for (const request of model.requests) {
      expect(request.headers['x-mcp-internal']).toBeUndefined();
      expect(request.headers['openai-organization']).toBe('org-1');
      expect(request.headers['openai-project']).toBe('proj-1');
      expect(request.path).toBe('/v1/responses');
    }
  });

  it('responses.stream: ONE lifecycle over every turn, sequence numbers running on, text as it arrives, parallel calls answered in order', async () => {
    model.setScript([
      {
        text: 'Looking.',
        calls: [
          { callId: 'p1', name: 'notes_open' },
          { callId: 'p2', name: 'broken' },
        ],
      },
      { text: 'Your notes are a and b.' },
    ]);
    const stream = client.responses.stream({ model: 'agent-1', input: [{ role: 'user', content: 'list my notes' }] });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'response.completed')).toHaveLength(1);
    expect(events[0].type).toBe('response.created');
    expect(events[events.length - 1].type).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, i) => i));
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Looking.\n\nYour notes are a and b.');
    expect(final.output_text).toBe('Looking.\n\nYour notes are a and b.');
    expect(final.usage).toEqual({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
    expect(model.requests.map((request) => request.body.stream)).toEqual([true, true]);
    expect(outputsOf(model, 1)).toEqual(['notes: a, b', 'tool error: Trellis unreachable (ECONNREFUSED)']);
    expect(
      inputOf(model, 1)
        .filter((item) => item.type === 'function_call_output')
        .map((item) => item.call_id),
    ).toEqual(['p1', 'p2']);
  });

  it('answers a transport error and a timeout with the exact texts, and goes on', async () => {
    model.setScript([
      {
        calls: [
          { callId: 't1', name: 'broken' },
          { callId: 't2', name: 'stuck' },
        ],
      },
      { text: 'Both failed.' },
    ]);
    const data = await client.responses.create({ model: 'agent-1', input: 'try both' });

    expect(data.output_text).toBe('Both failed.');
    expect(outputsOf(model, 1)).toEqual([
      'tool error: Trellis unreachable (ECONNREFUSED)',
      "tool error: 'stuck' timed out after 1s",
    ]);
  });

  it.each([false, true])(
    'ends with the last answer and the budget note when maxTurns runs out (stream: %s)',
    async (stream) => {
      await start({ bindings: [{ ...binding, maxTurns: 2 }] });
      model.setScript([{ text: 'Opening.', calls: [{ name: 'notes_open' }] }]);
      const note = '[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 2).';
      const text = stream
        ? (await client.responses.stream({ model: 'agent-1', input: 'loop forever' }).finalResponse()).output_text
        : (await client.responses.create({ model: 'agent-1', input: 'loop forever' })).output_text;

      expect(text).toBe(`Opening.\n\nOpening.\n\n${note}`);
      expect(model.requests).toHaveLength(2);
    },
  );

  it("falls through untouched when the first turn fails: the normal handler answers the client's own request", async () => {
    model.setScript(() => (model.requests.length === 1 ? { status: 500 } : { text: 'plain answer' }));
    const body = { model: 'agent-1', input: 'hello', tools: [{ type: 'web_search' as const }] };
    const { data, response } = await client.responses.create(body).withResponse();

    expect(data.output_text).toBe('plain answer');
    expect(response.headers.get('x-agent-loop-stop')).toBeNull();
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1].body).toEqual(body);
    expect(model.requests[1].headers['x-mcp-internal']).toBeUndefined();
  });

  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    strict: false,
  };

  it("hands a call to the client's own tool back with the loop's work carried; the follow-up brings it back, reasoning paired", async () => {
    model.setScript([
      { calls: [{ callId: 'n1', name: 'notes_open' }] },
      { reasoning: true, calls: [{ callId: 'wx', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'It is sunny in Paris.' },
    ]);
    const tools = [weather, { type: 'web_search' as const }];
    const input = [{ role: 'user' as const, content: 'weather where my notes say?' }];
    const { data, response } = await client.responses.create({ model: 'agent-1', input, tools }).withResponse();

    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    expect(data.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const call = data.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.name).toBe('get_weather');
    expect(call.call_id.startsWith('wx.al1.')).toBe(true);
    expect(model.requests[0].body.tools).toEqual([
      ...(model.requests[0].body.tools as Item[]).slice(0, 4),
      weather,
      { type: 'web_search' },
    ]);

    const followUp = await client.responses.create({
      model: 'agent-1',
      input: [
        ...input,
        ...(data.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
      tools,
    });

    expect(followUp.output_text).toBe('It is sunny in Paris.');
    const restored = inputOf(model, 2);
    expect(restored.map((item) => item.type)).toEqual([
      undefined,
      'function_call',
      'function_call_output',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    expect(
      restored.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id, item.output]),
    ).toEqual([
      ['n1', 'notes: a, b'],
      ['wx', 'sunny'],
    ]);
    expect(restored[4].call_id).toBe('wx');
  });

  it('unlocks the child on the follow-up when the parent ran well before the hand-back, though its result reads like a failure', async () => {
    const opened = 'tool error: none, the notebook is open: a, b';
    await start({
      trellis: localTrellis([
        { name: 'notes_open', handler: () => opened },
        { name: 'notes_read', handler: (args) => `note ${String(args.id)}: buy milk` },
      ]),
    });
    model.setScript([
      { calls: [{ callId: 'n1', name: 'notes_open' }] },
      { calls: [{ callId: 'wx', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { calls: [{ callId: 'r1', name: 'notes_read', arguments: { id: 'a' } }] },
      { text: 'Buy milk.' },
    ]);
    const input = [{ role: 'user' as const, content: 'what do my notes say?' }];
    const first = await client.responses.create({ model: 'agent-1', input, tools: [weather] });
    const call = first.output.find(
      (item) => item.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall;
    const followUp = await client.responses.create({
      model: 'agent-1',
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
      tools: [weather],
    });

    expect(followUp.output_text).toBe('Buy milk.');
    expect(outputsOf(model, 3)).toEqual([opened, 'sunny', 'note a: buy milk']);
  });

  it('chains its turns on previous_response_id when the client does: each turn sends only the new items', async () => {
    model.setScript([
      { text: 'plain' },
      { calls: [{ callId: 'n1', name: 'notes_open' }] },
      { calls: [{ callId: 'wx', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Snow in Oslo.' },
    ]);
    const earlier = await client.responses.create({ model: 'plain-1', input: 'hi' });
    const data = await client.responses.create({
      model: 'agent-1',
      previous_response_id: earlier.id,
      input: 'weather?',
      tools: [weather],
    });

    expect(model.requests[1].body.previous_response_id).toBe(earlier.id);
    expect(model.requests[2].body.previous_response_id).toBe(model.replies[1].id);
    expect(model.requests[2].body.input).toEqual([
      { type: 'function_call_output', call_id: 'n1', output: 'notes: a, b' },
    ]);
    expect(data.id).not.toBe(model.replies[2].id);
    const call = data.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.call_id.startsWith('wx.al1.')).toBe(true);

    const followUp = await client.responses.create({
      model: 'agent-1',
      previous_response_id: data.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'snow' }],
      tools: [weather],
    });

    expect(followUp.output_text).toBe('Snow in Oslo.');
    expect(model.requests[3].body.previous_response_id).toBe(model.replies[2].id);
    expect(model.requests[3].body.input).toEqual([{ type: 'function_call_output', call_id: 'wx', output: 'snow' }]);
  });

  it("shows the id the client chained on as previous_response_id, never the upstream's: whole and on every streamed Response", async () => {
    model.setScript([
      { text: 'plain' },
      { calls: [{ callId: 'n1', name: 'notes_open' }] },
      { text: 'Notes a and b.' },
      { calls: [{ callId: 'n2', name: 'notes_open' }] },
      { text: 'Still a and b.' },
      { text: 'Fresh.' },
    ]);
    const earlier = await client.responses.create({ model: 'plain-1', input: 'hi' });
    const whole = await client.responses.create({
      model: 'agent-1',
      previous_response_id: earlier.id,
      input: 'notes?',
    });
    const responses: OpenAI.Responses.Response[] = [];
    const stream = client.responses.stream({ model: 'agent-1', previous_response_id: whole.id, input: 'again?' });
    for await (const event of stream)
      if (event.type === 'response.created' || event.type === 'response.completed') responses.push(event.response);
    const unchained = await client.responses.create({ model: 'agent-1', input: 'notes?' });

    expect(whole.previous_response_id).toBe(earlier.id);
    expect(responses.map((response) => response.previous_response_id)).toEqual([whole.id, whole.id]);
    expect(unchained.previous_response_id).toBeNull();
    // the upstream's ids stay inside: its chain ran on them
    expect(model.requests[2].body.previous_response_id).toBe(model.replies[1].id);
  });

  it('streams a hand-back: the call as its own output item, its arguments, then response.completed', async () => {
    model.setScript([
      { text: 'Checking.', calls: [{ callId: 'n1', name: 'notes_open' }] },
      { calls: [{ callId: 'wx', name: 'get_weather', arguments: { city: 'Rome' } }] },
    ]);
    const stream = client.responses.stream({ model: 'agent-1', input: 'weather?', tools: [weather] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();

    expect(final.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(final.output_text).toBe('Checking.');
    const call = final.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    expect([call.name, call.arguments]).toEqual(['get_weather', '{"city":"Rome"}']);
    expect(call.call_id.startsWith('wx.al1.')).toBe(true);
    expect(types.slice(-5)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it("serves the AI SDK's responses model too (generateText and streamText)", async () => {
    model.setScript(WALK);
    const provider = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key' });
    const generated = await generateText({ model: provider.responses('agent-1'), prompt: 'what is in my notes?' });

    expect(generated.text).toBe('Opening first.\n\nNote a says: buy milk.');
    expect(generated.usage.inputTokens).toBe(100);

    model.setScript(WALK);
    const streamed = streamText({ model: provider.responses('agent-1'), prompt: 'what is in my notes?' });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('Opening first.\n\nNote a says: buy milk.');
    expect(model.requests.slice(4).map((request) => request.body.stream)).toEqual([true, true, true, true]);
  });

  it('tells the judge the wire and shows it the Responses items; a block reads as on chat completions', async () => {
    const inputs: JudgeInput[] = [];
    const judge = {
      evaluate: async (input: JudgeInput) => (
        inputs.push(structuredClone(input)),
        { action: 'block' as const, reason: 'no notes today' }
      ),
    };
    await start({ judge: { judge } });
    model.setScript([{ calls: [{ callId: 'j1', name: 'notes_open' }] }, { text: 'Blocked.' }]);
    const data = await client.responses.create({ model: 'agent-1', input: 'open my notes' });

    expect(data.output_text).toBe('Blocked.');
    expect(outputsOf(model, 1)).toEqual(['tool error: blocked by policy: no notes today']);
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({ surface: 'tool_call', wire: 'responses', tool: 'notes_open' });
    expect((inputs[0].messages as Item[]).map((item) => item.type)).toEqual(['message', 'function_call']);
  });

  const judge = {
    evaluate: async (input: JudgeInput) => ({
      action: input.tool === 'broken' ? ('block' as const) : ('allow' as const),
      reason: 'no',
    }),
  };
  const loops: [
    string,
    ResponsesStep[],
    Record<string, unknown>,
    Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming>,
  ][] = [
    ['the gate refusing, the model self-correcting', WALK, {}, {}],
    [
      'parallel calls, one failing',
      [
        {
          text: 'Looking.',
          calls: [
            { callId: 'p1', name: 'notes_open' },
            { callId: 'p2', name: 'broken' },
          ],
        },
        { text: 'a and b.' },
      ],
      {},
      {},
    ],
    [
      'a later turn breaking off',
      [{ text: 'First.', calls: [{ callId: 'r1', name: 'notes_open' }] }, { status: 500 }],
      {},
      {},
    ],
    [
      'maxTurns running out',
      [{ text: 'Opening.', calls: [{ name: 'notes_open' }] }],
      { bindings: [{ ...binding, maxTurns: 2 }] },
      {},
    ],
    [
      "a hand-back to the client's tool",
      [
        { text: 'Checking.', calls: [{ callId: 'n1', name: 'notes_open' }] },
        { calls: [{ callId: 'wx', name: 'get_weather', arguments: { city: 'Rome' } }] },
      ],
      {},
      { tools: [weatherTool] },
    ],
    [
      'the judge blocking a call',
      [{ calls: [{ callId: 'j1', name: 'broken' }] }, { text: 'Blocked.' }],
      { judge: { judge } },
      {},
    ],
    [
      'text only in the first turn, none after',
      [{ text: 'Hi.', calls: [{ callId: 'q1', name: 'notes_open' }] }, {}],
      {},
      {},
    ],
  ];

  /** The loop's id (`x-agent-loop-id`) and the Response ids its stream names, event by event, with an injector in front of the gateway. */
  async function streamedIds(body: OpenAI.Responses.ResponseCreateParamsStreaming) {
    const { data, response } = await client.responses.create(body).withResponse();
    const ids: string[] = [];
    const items: string[] = [];
    for await (const event of data) {
      if ('response' in event) ids.push(`${event.type} ${event.response.id}`);
      if ('item_id' in event && event.type.startsWith('response.output_text')) items.push(event.item_id);
    }
    return { loopId: response.headers.get('x-agent-loop-id'), ids, items };
  }

  it.each(loops)(
    "a streamed loop names ONE Response id on every event, the JSON answer's: %s",
    async (_name, script, options, request) => {
      // a return-path injector in front, as a gateway has one: it skips the loop's own turns
      const outer = express();
      outer.use(
        express.json(),
        skipWhenInternal((req, _res, next) => ((req.body.instructions = 'Be brief.'), next())),
        buildGateway(model.url, { trellis: notes, bindings: [binding], ...options }).app,
      );
      await gateway.close();
      gateway = await listen(outer);
      client = gateway.client;
      model.setScript(script);
      const body = { model: 'agent-1', input: 'go', ...request };
      const streamed = await streamedIds({ ...body, stream: true });
      const upstreamIds = model.replies.map((reply) => reply.id);
      const { data, response } = await client.responses.create(body).withResponse();

      const id = `resp_${streamed.loopId}`;
      expect(streamed.ids).toEqual([
        `response.created ${id}`,
        `response.in_progress ${id}`,
        `response.completed ${id}`,
      ]);
      expect(new Set(streamed.items)).toEqual(new Set(streamed.items.length > 0 ? [`msg_${id}`] : []));
      expect(data.id).toBe(`resp_${response.headers.get('x-agent-loop-id')}`);
      expect(upstreamIds).not.toContain(id);
      expect(model.requests.every((sent) => sent.body.instructions === 'Be brief.')).toBe(true);
    },
  );

  it("a follow-up chaining on the streamed loop's id chains on the upstream's last reply", async () => {
    model.setScript([
      { text: 'Opening.', calls: [{ callId: 'o1', name: 'notes_open' }] },
      { text: 'Notes a and b.' },
      { text: 'You asked about notes.' },
    ]);
    const stream = client.responses.stream({ model: 'agent-1', input: 'my notes?' });
    let first = '';
    for await (const event of stream) if (event.type === 'response.created') first = event.response.id;
    const followUp = await client.responses.create({
      model: 'agent-1',
      previous_response_id: first,
      input: 'what did I ask?',
    });

    expect(followUp.output_text).toBe('You asked about notes.');
    expect(model.requests[2].body.previous_response_id).toBe(model.replies[1].id);
  });

  it('ends a stream whose later turn breaks with the note, in the same lifecycle', async () => {
    model.setScript([
      { text: 'First.', calls: [{ callId: 'r1', name: 'notes_open' }] },
      { text: 'never whole', stream: 'no-completed' },
    ]);
    const final = await client.responses.stream({ model: 'agent-1', input: 'go' }).finalResponse();

    expect(final.output_text).toBe(
      'First.\n\nnever whole\n\n[agent-loop] Stopped before a final answer: the model call of turn 2 failed (the model stream ended without response.completed).',
    );
  });
});
