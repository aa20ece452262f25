import Anthropic from '@anthropic-ai/sdk';
import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import { localTrellis, runCode, scriptedModel, type ScriptedModel } from '../../lib/testing';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';

// The SDK's types are ES module ones; its CommonJS build (the `require` condition) is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

type Wire = 'chat' | 'responses' | 'messages' | 'gemini';

const PROGRAM = "console.log('counting');\nconst n = await tools.count({});\nconsole.log('counted', n);\nreturn n;";
/** what the model reads of the program, as a tool result's text */
const RESULT = '{"return":{"n":3},"log":["counting","counted {\\"n\\":3}"]}';
const LOG = ['counting', 'counted {"n":3}'];
const GEMINI = 'gemini-2.5-flash';

/** A raw streamed request on each wire, as its client sends it: path, headers, body. */
const RAW: Record<Wire, { path: string; headers: Record<string, string>; body: unknown }> = {
  chat: {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer client-key' },
    body: { model: 'agent-1', messages: [{ role: 'user', content: 'count' }], stream: true },
  },
  responses: {
    path: '/v1/responses',
    headers: { authorization: 'Bearer client-key' },
    body: { model: 'agent-1', input: 'count', stream: true },
  },
  messages: {
    path: '/v1/messages',
    headers: { 'x-api-key': 'client-key', 'anthropic-version': '2023-06-01' },
    body: { model: 'claude-test', max_tokens: 256, messages: [{ role: 'user', content: 'count' }], stream: true },
  },
  gemini: {
    path: `/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`,
    headers: { 'x-goog-api-key': 'client-key' },
    body: { contents: [{ role: 'user', parts: [{ text: 'count' }] }] },
  },
};

/** The answer's text as each wire's official client reads it, JSON or streamed. */
async function answerText(gateway: Listening, wire: Wire, stream: boolean): Promise<string> {
  const openai = gateway.client;
  if (wire === 'chat') {
    const ask = { model: 'agent-1', messages: [{ role: 'user' as const, content: 'count' }] };
    const answer = stream
      ? await openai.chat.completions.stream(ask).finalChatCompletion()
      : await openai.chat.completions.create(ask);
    return String(answer.choices[0].message.content);
  }
  if (wire === 'responses') {
    if (!stream) return (await openai.responses.create({ model: 'agent-1', input: 'count' })).output_text;
    let text = '';
    for await (const event of await openai.responses.create({ model: 'agent-1', input: 'count', stream: true }))
      if (event.type === 'response.output_text.delta') text += event.delta;
    return text;
  }
  if (wire === 'messages') {
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'client-key', maxRetries: 0 });
    const ask = { model: 'claude-test', max_tokens: 256, messages: [{ role: 'user' as const, content: 'count' }] };
    const message = stream ? await anthropic.messages.stream(ask).finalMessage() : await anthropic.messages.create(ask);
    return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }
  // jest's sandbox hides Node's own fetch dispatcher from the SDK: it gets the sandbox's fetch to call with
  const genai = new GoogleGenAI({
    apiKey: 'client-key',
    httpOptions: { baseUrl: gateway.url, fetch: (input, init) => fetch(input, init) },
  });
  if (!stream) return (await genai.models.generateContent({ model: GEMINI, contents: 'count' })).text ?? '';
  let text = '';
  for await (const chunk of await genai.models.generateContentStream({ model: GEMINI, contents: 'count' }))
    text += chunk.text ?? '';
  return text;
}

/** The program's log lines a raw stream carried as SSE comments, which no official client shows. */
async function streamedLog(gateway: Listening, wire: Wire): Promise<string[]> {
  const { path, headers, body } = RAW[wire];
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(text).toContain('ran');
  return [...text.matchAll(/^: log run_code (.*)$/gm)].map(([, line]) => line);
}

describe('code mode on every wire, JSON and streamed, with the official clients', () => {
  let model: ScriptedModel;
  let gateway: Listening;
  let counted = 0;
  beforeAll(async () => {
    model = scriptedModel([
      runCode(PROGRAM),
      // the answer says whether the model read the program's result, on every wire's shape of a tool result
      (request) => ({ content: JSON.stringify(request.history.at(-1)).includes('counting') ? 'ran' : 'no result' }),
    ]);
    await model.ready;
    const trellis = localTrellis([{ name: 'count', description: 'Counts.', handler: () => (counted++, '{"n": 3}') }]);
    gateway = await listen(
      buildGateway(model.url, {
        trellis,
        bindings: [{ name: 'count', match: { model: '*' }, hierarchy: 'from-trellis', codeMode: true }],
      }).app,
    );
  });
  afterAll(async () => {
    await gateway.close();
    await model.close();
  });

  describe.each<Wire>(['chat', 'responses', 'messages', 'gemini'])('%s', (wire) => {
    it.each([false, true])('runs the program and answers (stream: %s)', async (stream) => {
      counted = 0;
      expect(await answerText(gateway, wire, stream)).toBe('ran');
      expect(counted).toBe(1);
    });

    it("streams the program's console.log lines as SSE comments, one a line", async () => {
      expect(await streamedLog(gateway, wire)).toEqual(LOG);
    });
  });

  it('gives the model the return value and the log as the tool result', async () => {
    const start = model.requests.length;
    await answerText(gateway, 'chat', false);
    expect((model.requests[start + 1].body.messages as unknown[]).at(-1)).toMatchObject({
      role: 'tool',
      content: RESULT,
    });
  });
});
