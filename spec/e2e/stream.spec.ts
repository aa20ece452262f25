import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import request from 'supertest';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer, type ScriptStep, type StreamBreak } from '../../fixtures/model-server';
import { buildGateway, expressVersions } from '../helpers/gateway';
import { listen, postRaw, type Listening } from '../helpers/listen';

const notes = localTrellis([
  { name: 'notes_open', handler: () => 'notes: a, b' },
  { name: 'notes_read', handler: (args) => `note ${String(args.id)}: buy milk` },
  { name: 'slow', handler: () => new Promise((resolve) => setTimeout(() => resolve('done slowly'), 2500)) },
]);
const binding = {
  name: 'notes',
  match: { model: 'agent-*' },
  hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'slow'],
};
const messages = [{ role: 'user' as const, content: 'what is in my notes?' }];
const clientTool = { type: 'function' as const, function: { name: 'get_location', parameters: { type: 'object' } } };

const walk: ScriptStep[] = [
  {
    content: 'Opening first.',
    toolCalls: [{ id: 'c1', name: 'notes_open' }],
    usage: { prompt_tokens: 10, completion_tokens: 1 },
  },
  {
    toolCalls: [{ id: 'c2', name: 'notes_read', arguments: { id: 'a' } }],
    usage: { prompt_tokens: 20, completion_tokens: 2 },
  },
  {
    content: 'Note a says: buy milk. It is the only note you need today.',
    usage: { prompt_tokens: 30, completion_tokens: 3 },
  },
];

const textOf = (chunks: ChatCompletionChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
const finishes = (chunks: ChatCompletionChunk[]) =>
  chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean);
const noteOf = (text: string) => text.slice(text.indexOf('[agent-loop]'));

describe.each(expressVersions)('stream: true under %s', (_name, express) => {
  let model: ModelServer;
  let gateway: Listening;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(async () => {
    await gateway?.close();
    await model.close();
  });

  async function start(options: Record<string, unknown> = {}) {
    const built = buildGateway(model.url, { trellis: notes, bindings: [binding], ...options }, express);
    gateway = await listen(built.app);
    return built;
  }

  async function streamed(extra: Record<string, unknown> = {}): Promise<ChatCompletionChunk[]> {
    const stream = await gateway.client.chat.completions.create({ model: 'agent-1', messages, stream: true, ...extra });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  }

  it('streams one well-formed completion whose text equals the non-streaming answer, with usage summed over all turns', async () => {
    model.setScript(walk);
    await start();
    const chunks = await streamed({ stream_options: { include_usage: true } });
    const json = await gateway.client.chat.completions.create({ model: 'agent-1', messages });

    expect(textOf(chunks)).toBe(json.choices[0].message.content);
    expect(textOf(chunks)).toBe('Opening first.\n\nNote a says: buy milk. It is the only note you need today.');
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.model === 'agent-1' && chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(finishes(chunks)).toEqual(['stop']);

    const [usage] = chunks.slice(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 60, completion_tokens: 6, total_tokens: 66 });
    const body = chunks.slice(0, -2);
    expect(body.every((chunk) => (chunk.choices[0].delta.content ?? '') !== '')).toBe(true);
    expect(body.filter((chunk) => chunk.choices[0].delta.role !== undefined)).toEqual([body[0]]);
    expect(chunks.some((chunk) => chunk.choices[0]?.delta.tool_calls)).toBe(false);

    const turns = model.requests.slice(0, 3).map((sent) => sent.body);
    expect(turns.map((turn) => [turn.stream, turn.stream_options])).toEqual(
      Array(3).fill([true, { include_usage: true }]),
    );
    expect(turns[2].messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'notes: a, b',
      'note a: buy milk',
    ]);
  });

  it('sends no usage chunk unless asked and forwards text as it arrives, not when the turn ends', async () => {
    model.setScript([{ content: 'First words', stream: { drop: 'trickle', afterChunks: 2, everyMs: 200 } }]);
    await start({ totalBudgetSec: 2 });
    const raw = await postRaw(gateway.url, { model: 'agent-1', messages, stream: true });
    const firstText = raw.parts.find((part) => part.text.includes('First wo'));
    expect(raw.parts[raw.parts.length - 1].at - firstText!.at).toBeGreaterThan(1000);
    expect(raw.body).not.toContain('"usage"');
    expect(raw.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('appends the budget note as the last content chunk before the finishing chunk', async () => {
    model.setScript(() => ({ content: 'still looking', toolCalls: [{ name: 'notes_open' }] }));
    await start({ bindings: [{ ...binding, maxTurns: 2 }] });
    const chunks = await streamed();
    const [note, finish] = chunks.slice(-2);
    expect(note.choices[0].delta.content).toBe(
      '\n\n[agent-loop] Stopped before a final answer: the turn budget ran out (max_turns = 2).',
    );
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(textOf(chunks)).toBe(
      (await request(gateway.url).post('/v1/chat/completions').send({ model: 'agent-1', messages })).body.choices[0]
        .message.content,
    );
  });

  it("streams a call to one of the client's own tools as a tool-call delta and never the loop's own calls", async () => {
    model.setScript([
      { toolCalls: [{ id: 'mine', name: 'notes_open' }] },
      { content: 'Where are you?', toolCalls: [{ id: 'yours', name: 'get_location', arguments: { precise: true } }] },
    ]);
    await start();
    const chunks = await streamed({ tools: [clientTool] });
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^yours\.al1\./),
        type: 'function',
        function: { name: 'get_location', arguments: '{"precise":true}' },
      },
    ]);
    expect(finishes(chunks)).toEqual(['tool_calls']);
    expect(textOf(chunks)).toBe('Where are you?');
  });

  it('keeps a quiet stream open with SSE comments while a slow tool runs', async () => {
    model.setScript([{ toolCalls: [{ name: 'slow' }] }, { content: 'finally' }]);
    await start({ keepAliveSec: 1 });
    const raw = await postRaw(gateway.url, { model: 'agent-1', messages, stream: true });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(raw.body.match(/^: keep-alive$/gm)?.length).toBeGreaterThanOrEqual(1);
    expect(raw.body.indexOf(': keep-alive')).toBeLessThan(raw.body.indexOf('finally'));
    expect(raw.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  const breaks: StreamBreak['drop'][] = ['no-done', 'malformed', 'reset'];

  it.each(breaks)(
    'falls through to the normal handler when the first turn breaks (%s) before a byte went out',
    async (drop) => {
      model.setScript((sent) =>
        sent.tools ? { toolCalls: [{ name: 'notes_open' }], stream: { drop } } : { content: 'the plain answer' },
      );
      await start();
      const chunks = await streamed();
      expect(textOf(chunks)).toBe('the plain answer');
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1].body).toEqual({ model: 'agent-1', messages, stream: true });
    },
  );

  it.each(breaks)('ends the stream cleanly with a note when a turn breaks (%s) after text went out', async (drop) => {
    model.setScript([{ content: 'Partial answer', stream: { drop, afterChunks: 2 } }]);
    await start();
    const chunks = await streamed();
    const text = textOf(chunks);
    expect(text.startsWith('Partial ')).toBe(true);
    expect(noteOf(text)).toMatch(
      /^\[agent-loop\] Stopped before a final answer: the model call of turn 1 failed \(.+\)\.$/,
    );
    expect(finishes(chunks)).toEqual(['stop']);
    expect(model.requests).toHaveLength(1);
  });

  it('names a malformed frame and a missing [DONE] in the note', async () => {
    model.setScript([
      { content: 'Looking.', toolCalls: [{ name: 'notes_open' }] },
      { content: 'cut', stream: { drop: 'no-done' } },
    ]);
    await start();
    expect(noteOf(textOf(await streamed()))).toContain(
      'the model call of turn 2 failed (the model stream ended without [DONE])',
    );
    model.setScript([
      { content: 'Looking.', toolCalls: [{ name: 'notes_open' }] },
      { content: 'cut', stream: { drop: 'malformed', afterChunks: 0 } },
    ]);
    expect(noteOf(textOf(await streamed()))).toContain(
      'the model call of turn 2 failed (the model stream sent a malformed frame: {"id": "chatcmpl-broken", "choices": [)',
    );
  });

  it('bounds a trickle that never ends with the total budget', async () => {
    model.setScript([
      { content: 'Looking.', toolCalls: [{ name: 'notes_open' }] },
      { stream: { drop: 'trickle', everyMs: 50 } },
    ]);
    await start({ totalBudgetSec: 2 });
    const chunks = await streamed({ stream_options: { include_usage: true } });
    const text = textOf(chunks);
    expect(text).toMatch(
      /^Looking\.\n\n\.+\n\n\[agent-loop\] Stopped before a final answer: the total time budget ran out \(totalBudgetSec = 2s\)\.$/,
    );
    expect(finishes(chunks)).toEqual(['stop']);
    expect(chunks[chunks.length - 1].usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('falls through with the request untouched when the first turn fails with an HTTP error', async () => {
    model.setScript((sent) => (sent.tools ? { status: 503 } : { content: 'served by the normal handler' }));
    await start();
    expect(textOf(await streamed())).toBe('served by the normal handler');
    expect(model.requests[1].body).toEqual({ model: 'agent-1', messages, stream: true });
  });
});
