import Anthropic from '@anthropic-ai/sdk';
import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import { startGeminiServer, type GeminiServer } from '../../fixtures/gemini-server';
import OpenAI from 'openai';
import { startMessagesServer, type MessagesServer } from '../../fixtures/messages-server';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { createGateway } from '../../lib/gateway/gateway';
import { localTrellis } from '../../lib/trellis/local';
import { recordingUpstream, serveGateway } from '../helpers/upstream';

// The SDK's types are ES module ones; its CommonJS build (the `require` condition) is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

const CLIENT_KEY = 'client-key-0123456789abcdef';
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe("the ready gateway puts the operator's key where Anthropic's Messages API reads it", () => {
  let upstream: MessagesServer;
  let gateway: Awaited<ReturnType<typeof serveGateway>> | undefined;
  beforeEach(async () => {
    process.env.TEST_OPERATOR_KEY = 'sk-ant-operator-secret';
    // the scripted upstream answers 401 to any key but the operator's, in x-api-key or as a bearer
    upstream = await startMessagesServer(
      [{ toolUses: [{ id: 'toolu_1', name: 'clock_now' }] }, { text: 'It is 08:00.' }],
      { apiKey: 'sk-ant-operator-secret' },
    );
    gateway = await serveGateway({
      upstream: { url: `${upstream.url}/v1`, apiKeyEnv: 'TEST_OPERATOR_KEY' },
      clientKeys: [CLIENT_KEY],
      trellis,
      bindings,
      metrics: false,
    });
  });
  afterEach(async () => {
    await gateway?.close();
    await upstream.close();
  });

  it("sends x-api-key (never the client's key or a bearer) on every turn, with the client's anthropic-version and anthropic-beta", async () => {
    const client = new Anthropic({
      baseURL: `http://127.0.0.1:${gateway!.port}`,
      apiKey: CLIENT_KEY,
      maxRetries: 0,
      defaultHeaders: { 'anthropic-version': '2026-10-21', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    });
    const message = await client.messages.create({
      model: 'agent',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'time?' }],
    });

    expect(message.content).toEqual([{ type: 'text', text: 'It is 08:00.' }]);
    expect(upstream.requests).toHaveLength(2);
    for (const { headers } of upstream.requests) {
      expect(headers['x-api-key']).toBe('sk-ant-operator-secret');
      expect(headers.authorization).toBeUndefined();
      expect(headers['anthropic-version']).toBe('2026-10-21');
      expect(headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    }
  });

  it('sends anthropic-version 2023-06-01 when the client sent none', async () => {
    const reply = await fetch(`http://127.0.0.1:${gateway!.port}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT_KEY}` },
      body: JSON.stringify({ model: 'plain', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(reply.status).toBe(200);
    expect(
      upstream.requests.map(({ headers }) => [
        headers['x-api-key'],
        headers.authorization,
        headers['anthropic-version'],
      ]),
    ).toEqual([['sk-ant-operator-secret', undefined, '2023-06-01']]);
  });
});

describe("the ready gateway keeps the client's own key from the upstream", () => {
  it("sends only the operator's bearer on chat completions, when the client's key came as x-api-key", async () => {
    process.env.TEST_OPERATOR_KEY = 'sk-operator-secret';
    const model = await startModelServer([{ content: 'hello' }]);
    const gateway = await serveGateway({
      upstream: { url: model.url, apiKeyEnv: 'TEST_OPERATOR_KEY' },
      clientKeys: [CLIENT_KEY],
      trellis,
      bindings,
      metrics: false,
    });
    try {
      const reply = await fetch(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': CLIENT_KEY },
        body: JSON.stringify({ model: 'plain', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(reply.status).toBe(200);
      expect(model.requests.map(({ headers }) => [headers.authorization, headers['x-api-key']])).toEqual([
        ['Bearer sk-operator-secret', undefined],
      ]);
    } finally {
      await gateway.close();
      await model.close();
    }
  });
});

describe("the ready gateway routes Gemini's /v1beta and /v1 and puts the operator's key where Gemini reads it", () => {
  let upstream: GeminiServer;
  let gateway: Awaited<ReturnType<typeof serveGateway>> | undefined;
  beforeEach(async () => {
    process.env.TEST_OPERATOR_KEY = 'AIza-operator-secret';
    // the scripted upstream refuses any key but the operator's, in x-goog-api-key or ?key=
    upstream = await startGeminiServer([{ calls: [{ name: 'clock_now' }] }, { text: 'It is 08:00.' }], {
      apiKey: 'AIza-operator-secret',
    });
    gateway = await serveGateway({
      upstream: { url: `${upstream.url}/v1`, apiKeyEnv: 'TEST_OPERATOR_KEY' },
      clientKeys: [CLIENT_KEY],
      trellis,
      bindings: [{ name: 'clock', match: { model: 'gemini-*' }, hierarchy: 'clock_now' }],
      metrics: false,
    });
  });
  afterEach(async () => {
    await gateway?.close();
    await upstream.close();
  });

  it("serves @google/genai on /v1beta (the same path at the upstream's origin), the client's key never upstream", async () => {
    const client = new GoogleGenAI({
      apiKey: CLIENT_KEY,
      // jest's sandbox hides Node's fetch dispatcher from the SDK: it gets this fetch
      httpOptions: { baseUrl: `http://127.0.0.1:${gateway!.port}`, fetch: (input, init) => fetch(input, init) },
    });
    const chunks: string[] = [];
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'time?' });
    for await (const chunk of stream) chunks.push(chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? '');
    expect(chunks.join('')).toBe('It is 08:00.');
    expect(upstream.requests.map(({ path, headers, refused }) => [path, headers['x-goog-api-key'], refused])).toEqual([
      ['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'AIza-operator-secret', undefined],
      ['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'AIza-operator-secret', undefined],
    ]);
  });

  it('routes /v1/models/... without doubling /v1, and takes the client’s ?key= off', async () => {
    const reply = await fetch(
      `http://127.0.0.1:${gateway!.port}/v1/models/gemini-2.5-flash:generateContent?key=${CLIENT_KEY}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': CLIENT_KEY },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'time?' }] }] }),
      },
    );
    expect(reply.status).toBe(200);
    expect(upstream.requests.map(({ path }) => path)).toEqual([
      '/v1/models/gemini-2.5-flash:generateContent',
      '/v1/models/gemini-2.5-flash:generateContent',
    ]);
    const other = await fetch(`http://127.0.0.1:${gateway!.port}/v1beta/models/gemini-2.5-flash:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': CLIENT_KEY },
      body: '{}',
    });
    expect(other.status).toBe(404);
  });
});

describe('upstream.apiKeyEnv naming a variable that holds no key', () => {
  it.each([
    ['unset', undefined, 'not set'],
    ['empty', '', 'empty'],
  ])('refuses to start when the variable is %s, naming the fix', (_case, value, state) => {
    if (value === undefined) delete process.env.TEST_ABSENT_UPSTREAM_KEY;
    else process.env.TEST_ABSENT_UPSTREAM_KEY = value;
    expect(() =>
      createGateway({
        upstream: { url: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_ABSENT_UPSTREAM_KEY' },
        clientKeys: [CLIENT_KEY],
        logger: quiet,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_AGENT_LOOP_NO_UPSTREAM_KEY',
        message: `createGateway: option 'upstream.apiKeyEnv' names TEST_ABSENT_UPSTREAM_KEY, which is ${state}; set it to the upstream's API key (e.g. export TEST_ABSENT_UPSTREAM_KEY=sk-...), or remove apiKeyEnv for an upstream that takes no key.`,
      }),
    );
    delete process.env.TEST_ABSENT_UPSTREAM_KEY;
  });
});

describe('a key the gateway checked never travels upstream, with no upstream key to send instead', () => {
  let model: ModelServer;
  let gateway: Awaited<ReturnType<typeof serveGateway>>;
  beforeEach(async () => {
    model = await startModelServer((body) =>
      body.messages.some((message) => message.role === 'tool')
        ? { content: 'It is 08:00.' }
        : { toolCalls: [{ name: 'clock_now' }] },
    );
  });
  afterEach(async () => {
    await gateway.close();
    await model.close();
  });

  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(`http://127.0.0.1:${gateway.port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const chat = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'time?' }] });

  it('takes the client key off every request and every turn, as a bearer or as x-api-key', async () => {
    gateway = await serveGateway({
      upstream: { url: model.url },
      clientKeys: [CLIENT_KEY],
      trellis,
      bindings,
      metrics: false,
    });
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${gateway.port}/v1`, apiKey: CLIENT_KEY, maxRetries: 0 });
    expect((await client.chat.completions.create(chat('agent'))).choices[0].message.content).toBe('It is 08:00.');
    expect((await post('/v1/chat/completions', { 'x-api-key': CLIENT_KEY }, chat('plain'))).status).toBe(200);
    expect(model.requests.map(({ headers }) => [headers.authorization, headers['x-api-key']])).toEqual(
      Array(3).fill([undefined, undefined]),
    );
  });

  it('takes it off Responses and Messages requests too', async () => {
    const upstream = await recordingUpstream();
    gateway = await serveGateway({ upstream: { url: upstream.url }, clientKeys: [CLIENT_KEY], metrics: false });
    try {
      const both = { authorization: `Bearer ${CLIENT_KEY}`, 'x-api-key': CLIENT_KEY };
      expect((await post('/v1/responses', both, { model: 'plain', input: 'hi' })).status).toBe(200);
      expect(
        (
          await post(
            '/v1/messages',
            { ...both, 'anthropic-version': '2023-06-01' },
            { model: 'plain', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
          )
        ).status,
      ).toBe(200);
      expect(upstream.seen).toEqual([
        { method: 'POST', url: '/v1/responses', authorization: undefined, apiKey: undefined },
        { method: 'POST', url: '/v1/messages', authorization: undefined, apiKey: undefined },
      ]);
    } finally {
      await upstream.close();
    }
  });

  it("forwards the client's own key on an open gateway (no clientKeys): it was never the gateway's to check", async () => {
    gateway = await serveGateway({ upstream: { url: model.url }, metrics: false });
    expect(
      (await post('/v1/chat/completions', { authorization: 'Bearer sk-the-clients-own' }, chat('plain'))).status,
    ).toBe(200);
    expect(model.requests.map(({ headers }) => headers.authorization)).toEqual(['Bearer sk-the-clients-own']);
  });
});
