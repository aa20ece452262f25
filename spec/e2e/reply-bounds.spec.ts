import type OpenAI from 'openai';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer, type ScriptStep } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

const MAX_REPLY_BYTES = 64 * 1024;
const NOTE = `[agent-loop] Stopped before a final answer: the model call of turn 2 failed (the model's reply is longer than maxReplyBytes = ${MAX_REPLY_BYTES}).`;
const trellis = localTrellis([{ name: 'lookup', handler: () => 'found' }]);
const binding = { name: 'b', match: { model: 'agent-*' }, hierarchy: ['lookup'] };

async function answer(client: OpenAI, stream: boolean): Promise<string> {
  const params = { model: 'agent-1', messages: [{ role: 'user' as const, content: 'hi' }] };
  if (!stream) return (await client.chat.completions.create(params)).choices[0].message.content ?? '';
  let text = '';
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true }))
    text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

const WITHOUT_END: [string, boolean, ScriptStep][] = [
  [
    'a JSON body without end',
    false,
    { endless: '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"' },
  ],
  ['one SSE line without end', true, { endless: 'data: {"choices":[{"index":0,"delta":{"content":"' }],
];

describe.each(['in-process', 'socket'] as const)('maxReplyBytes, selfCall %s', (selfCall) => {
  let model: ModelServer;
  let gateway: Listening;
  beforeAll(async () => {
    model = await startModelServer();
    gateway = await listen(
      buildGateway(model.url, { trellis, bindings: [binding], selfCall, maxReplyBytes: MAX_REPLY_BYTES }).app,
    );
  });
  afterAll(async () => {
    await gateway.close();
    await model.close();
  });

  it.each(WITHOUT_END)(
    '%s on turn 2: the gateway stops reading at the bound, cuts the upstream off and answers with the note',
    async (_name, stream, step) => {
      model.setScript([{ toolCalls: [{ name: 'lookup' }] }, step]);
      const seen = model.requests.length;
      const text = await answer(gateway.client, stream);
      expect(text.endsWith(NOTE)).toBe(true);
      const turn2 = model.requests[seen + 1];
      for (let i = 0; i < 100 && turn2.abortedAt === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(turn2.abortedAt).toBeDefined();
    },
  );

  it('a streamed message of maxReplyBytes in 8-byte deltas (16 times as much SSE) is read whole; one byte more fails the turn', async () => {
    model.setScript([{ toolCalls: [{ name: 'lookup' }] }, { content: 'z'.repeat(MAX_REPLY_BYTES) }]);
    expect(await answer(gateway.client, true)).toBe('z'.repeat(MAX_REPLY_BYTES));
    model.setScript([{ toolCalls: [{ name: 'lookup' }] }, { content: 'z'.repeat(MAX_REPLY_BYTES + 1) }]);
    expect((await answer(gateway.client, true)).endsWith(NOTE)).toBe(true);
    // 16 Ki frames a run: a loaded machine takes its time
  }, 120_000);

  it('a reply of exactly maxReplyBytes is read whole', async () => {
    const content = 'y'.repeat(MAX_REPLY_BYTES);
    const body = JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'agent-1',
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }],
    });
    const raw = body.replace('"content":""', `"content":"${content.slice(0, MAX_REPLY_BYTES - body.length)}"`);
    expect(Buffer.byteLength(raw)).toBe(MAX_REPLY_BYTES);
    model.setScript([{ toolCalls: [{ name: 'lookup' }] }, { raw }]);
    expect(await answer(gateway.client, false)).toBe(content.slice(0, MAX_REPLY_BYTES - body.length));
  });
});
