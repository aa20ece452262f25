import OpenAI from 'openai';
import { AgentLoopError } from '../../lib';
import { createGateway } from '../../lib/gateway/gateway';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer } from '../../fixtures/model-server';
import { recordingUpstream, send, serveGateway } from '../helpers/upstream';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const KEY = 'client-key-0123456789abcdef';
const OTHER_KEY = 'client-key-fedcba9876543210';
const UNAUTHORISED = {
  error: {
    message:
      'this gateway needs a client key: send Authorization: Bearer <key> (or x-api-key: <key>) with a key its operator gave you',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
};

describe('client keys of the ready gateway', () => {
  let upstream: Awaited<ReturnType<typeof recordingUpstream>>;
  let gateway: Awaited<ReturnType<typeof serveGateway>> | undefined;
  beforeEach(async () => {
    upstream = await recordingUpstream();
    process.env.TEST_OPERATOR_KEY = 'operator-secret';
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await upstream.close();
    delete process.env.TEST_CLIENT_KEYS;
  });

  it.each([
    ['no key', {}],
    ['an unknown bearer key', { authorization: `Bearer ${KEY}x` }],
    ['a key of another scheme', { authorization: `Basic ${KEY}` }],
    ['an unknown x-api-key', { 'x-api-key': 'client-key-guessed-guessed' }],
  ])("answers %s with 401 in OpenAI's error shape, before any route, and forwards nothing", async (_case, headers) => {
    gateway = await serveGateway({
      upstream: { url: upstream.url, apiKeyEnv: 'TEST_OPERATOR_KEY' },
      clientKeys: [KEY],
    });
    for (const [method, path] of [
      ['POST', '/v1/chat/completions'],
      ['DELETE', '/v1/files/file-abc'],
      ['POST', '/v1/../x'],
    ]) {
      const answer = await send(gateway.port, method, path, headers);
      expect(answer).toMatchObject({ status: 401, body: UNAUTHORISED });
      expect(answer.headers['www-authenticate']).toBe('Bearer');
    }
    expect(upstream.seen).toEqual([]);
  });

  it('forwards a request with a known key (bearer or x-api-key) with the operator key in its place', async () => {
    gateway = await serveGateway({
      upstream: { url: upstream.url, apiKeyEnv: 'TEST_OPERATOR_KEY' },
      clientKeys: [OTHER_KEY, KEY],
    });
    expect((await send(gateway.port, 'POST', '/v1/embeddings', { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect((await send(gateway.port, 'GET', '/v1/models', { 'x-api-key': OTHER_KEY })).status).toBe(200);
    expect(upstream.seen.map(({ method, url, authorization }) => [method, url, authorization])).toEqual([
      ['POST', '/v1/embeddings', 'Bearer operator-secret'],
      ['GET', '/v1/models', 'Bearer operator-secret'],
    ]);
    // a known key still meets the route guard
    expect((await send(gateway.port, 'DELETE', '/v1/files/file-abc', { authorization: `Bearer ${KEY}` })).status).toBe(
      404,
    );
  });

  it('takes keys from clientKeysEnv, and runs the loop for the official openai client: its own turns need no key (forwardHeaders: [])', async () => {
    const model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00.' }]);
    try {
      process.env.TEST_CLIENT_KEYS = `${OTHER_KEY}, ${KEY}`;
      const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);
      const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
      gateway = await serveGateway({
        upstream: { url: model.url, apiKeyEnv: 'TEST_OPERATOR_KEY' },
        clientKeysEnv: 'TEST_CLIENT_KEYS',
        trellis,
        bindings,
        forwardHeaders: [],
      });
      const client = (apiKey: string) =>
        new OpenAI({ baseURL: `http://127.0.0.1:${gateway!.port}/v1`, apiKey, maxRetries: 0 });
      const { data, response } = await client(KEY)
        .chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'time?' }] })
        .withResponse();
      expect(data.choices[0].message.content).toBe('It is 08:00.');
      expect(response.headers.get('x-agent-loop-turns')).toBe('2');
      expect(model.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer operator-secret',
        'Bearer operator-secret',
      ]);
      await expect(
        client('sk-not-a-client-key').chat.completions.create({
          model: 'agent',
          messages: [{ role: 'user', content: 'time?' }],
        }),
      ).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(model.requests).toHaveLength(2);
    } finally {
      await model.close();
    }
  });

  it('keeps /healthz and /readyz open, and puts /metrics behind the key', async () => {
    gateway = await serveGateway({ upstream: { url: upstream.url }, clientKeys: [KEY] });
    expect((await send(gateway.port, 'GET', '/healthz')).status).toBe(200);
    expect((await send(gateway.port, 'GET', '/readyz')).status).toBe(200);
    expect(await send(gateway.port, 'GET', '/metrics')).toMatchObject({ status: 401, body: UNAUTHORISED });
    const metrics = await fetch(`http://127.0.0.1:${gateway.port}/metrics`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('agent_loop_loops_total');
  });

  it('leaves a gateway without client keys open, as before', async () => {
    gateway = await serveGateway({ upstream: { url: upstream.url } });
    expect((await send(gateway.port, 'POST', '/v1/chat/completions')).status).toBe(200);
    expect((await send(gateway.port, 'GET', '/metrics')).status).toBe(200);
  });

  it.each([
    [
      { clientKeysEnv: 'TEST_CLIENT_KEYS' },
      "createGateway: option 'clientKeysEnv' names TEST_CLIENT_KEYS, which holds no key; set it to the client keys, separated by commas, e.g. TEST_CLIENT_KEYS=key-one,key-two, or leave clientKeysEnv out.",
    ],
    [
      { clientKeys: ['short-key'] },
      "createGateway: option 'clientKeys[0]' is a string of 9 characters (not shown); it must be a list of keys of at least 16 characters each",
    ],
    [
      { clientKeys: [] },
      "createGateway: option 'clientKeys' is an array (not shown); it must be a list of keys of at least 16 characters each",
    ],
    [{ clientKey: [KEY] }, "createGateway: unknown option 'clientKey'. Did you mean `clientKeys`?"],
    [
      { clientKeysEnv: 'TEST_CLIENT_KEYS', env: `${KEY},ab` },
      "createGateway: option 'clientKeysEnv' names TEST_CLIENT_KEYS, whose key 2 is 2 characters long (not shown); every client key must have at least 16 characters: set TEST_CLIENT_KEYS to longer keys, separated by commas.",
    ],
  ])(
    'refuses %j at start-up with a coded error that shows no key',
    ({ env, ...keys }: Record<string, unknown>, message) => {
      if (typeof env === 'string') process.env.TEST_CLIENT_KEYS = env;
      const config = { upstream: { url: upstream.url }, logger: quiet, ...keys };
      expect(() => createGateway(config as never)).toThrow(AgentLoopError);
      expect(() => createGateway(config as never)).toThrow(message);
    },
  );
});
