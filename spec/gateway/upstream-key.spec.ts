import Anthropic from '@anthropic-ai/sdk';
import { startMessagesServer, type MessagesServer } from '../../fixtures/messages-server';
import { startModelServer } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import { serveGateway } from '../helpers/upstream';

const CLIENT_KEY = 'client-key-0123456789abcdef';
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];

describe("the ready gateway puts the operator's key where Anthropic's Messages API reads it", () => {
  let upstream: MessagesServer;
  let gateway: Awaited<ReturnType<typeof serveGateway>> | undefined;
  beforeEach(async () => {
    process.env.TEST_OPERATOR_KEY = 'sk-ant-operator-secret';
    // the scripted upstream answers 401 to any key but the operator's, in x-api-key or as a bearer
    upstream = await startMessagesServer([{ toolUses: [{ id: 'toolu_1', name: 'clock_now' }] }, { text: 'It is 08:00.' }], { apiKey: 'sk-ant-operator-secret' });
    gateway = await serveGateway({ upstream: { url: `${upstream.url}/v1`, apiKeyEnv: 'TEST_OPERATOR_KEY' }, clientKeys: [CLIENT_KEY], trellis, bindings, metrics: false });
  });
  afterEach(async () => {
    await gateway?.close();
    await upstream.close();
  });

  it("sends x-api-key (never the client's key or a bearer) on every turn, with the client's anthropic-version and anthropic-beta", async () => {
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${gateway!.port}`, apiKey: CLIENT_KEY, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2026-10-21', 'anthropic-beta': 'interleaved-thinking-2025-05-14' } });
    const message = await client.messages.create({ model: 'agent', max_tokens: 64, messages: [{ role: 'user', content: 'time?' }] });

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
    expect(upstream.requests.map(({ headers }) => [headers['x-api-key'], headers.authorization, headers['anthropic-version']])).toEqual([['sk-ant-operator-secret', undefined, '2023-06-01']]);
  });
});

describe("the ready gateway keeps the client's own key from the upstream", () => {
  it("sends only the operator's bearer on chat completions, when the client's key came as x-api-key", async () => {
    process.env.TEST_OPERATOR_KEY = 'sk-operator-secret';
    const model = await startModelServer([{ content: 'hello' }]);
    const gateway = await serveGateway({ upstream: { url: model.url, apiKeyEnv: 'TEST_OPERATOR_KEY' }, clientKeys: [CLIENT_KEY], trellis, bindings, metrics: false });
    try {
      const reply = await fetch(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': CLIENT_KEY },
        body: JSON.stringify({ model: 'plain', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(reply.status).toBe(200);
      expect(model.requests.map(({ headers }) => [headers.authorization, headers['x-api-key']])).toEqual([['Bearer sk-operator-secret', undefined]]);
    } finally {
      await gateway.close();
      await model.close();
    }
  });
});
