import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import OpenAI from 'openai';
import request from 'supertest';
import type * as Gateway from '../../lib/gateway/gateway';
import { createGateway } from '../../lib/gateway/gateway';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { memoryLogger } from '../helpers/memory-logger';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const trellis = localTrellis([{ name: 'clock_now', handler: () => '08:00' }]);

describe('createGateway', () => {
  let model: ModelServer;
  let server: Server;
  beforeEach(async () => {
    model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00.' }]);
  });
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await model.close();
  });

  async function listen(config: Parameters<typeof createGateway>[0]): Promise<OpenAI> {
    const app = createGateway(config);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return new OpenAI({
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: 'client-key',
      maxRetries: 0,
    });
  }

  it('serves the loop to the official openai client and proxies everything else with the upstream key', async () => {
    process.env.TEST_UPSTREAM_KEY = 'upstream-secret';
    const client = await listen({
      upstream: { url: model.url, apiKeyEnv: 'TEST_UPSTREAM_KEY' },
      trellis,
      bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
      logger: quiet,
    });
    const { data, response } = await client.chat.completions
      .create({ model: 'agent', messages: [{ role: 'user', content: 'time?' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('It is 08:00.');
    expect(response.headers.get('x-agent-loop-turns')).toBe('2');
    expect(model.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer upstream-secret',
      'Bearer upstream-secret',
    ]);

    const plain = await client.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.choices[0].finish_reason).toBe('tool_calls');
    expect(model.requests[2].body.tools).toBeUndefined();
  });

  it('serves the OAuth callback before the client-key guard: the person’s browser brings no key', async () => {
    const app = createGateway({
      upstream: { url: model.url },
      clientKeys: ['client-key-0123456789'],
      trellis: {
        mcp: { url: 'http://127.0.0.1:9/mcp', oauth: { redirectUrl: 'https://gateway.example.com/oauth/callback' } },
      },
      bindings: [{ name: 'notes', match: { model: 'agent' }, hierarchy: 'whoami' }],
      logger: quiet,
    });
    const { text } = await request(app).get('/oauth/callback?code=c&state=forged').expect(400);
    expect(text).toContain('the state is invalid');
    await request(app).get('/v1/models').expect(401);
    await app.locals.agentLoop.close();
  });

  it.each([false, true])(
    "reuses its upstream connections: a loop's turns do not pay a connect each (stream: %s)",
    async (stream) => {
      const client = await listen({
        upstream: { url: model.url },
        trellis,
        bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
        logger: quiet,
      });
      const answer = await client.chat.completions.create({
        model: 'agent',
        stream,
        messages: [{ role: 'user', content: 'time?' }],
      });
      if (stream) for await (const _chunk of answer as AsyncIterable<unknown>);
      expect(model.requests).toHaveLength(2);
      expect(model.requests.map((r) => r.headers.connection)).toEqual(['keep-alive', 'keep-alive']);
      expect(model.requests[1].remotePort).toBe(model.requests[0].remotePort);
    },
  );

  it('hangs up an idle upstream connection before the upstream closes it: no turn goes out on one it is closing', async () => {
    // the upstream keeps idle connections for 8 s; a connection it closes as a turn goes out fails that turn (a 504)
    model.server.keepAliveTimeout = 8_000;
    const closedBy: Promise<string>[] = [];
    model.server.on('connection', (socket: Socket) =>
      closedBy.push(
        new Promise((resolve) => {
          socket.once('end', () => resolve('the gateway'));
          socket.once('timeout', () => resolve('the upstream'));
        }),
      ),
    );
    const client = await listen({
      upstream: { url: model.url },
      trellis,
      bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
      logger: quiet,
    });
    const answer = await client.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'time?' }],
    });
    expect(answer.choices[0].message.content).toBe('It is 08:00.');
    expect(closedBy).toHaveLength(1);
    expect(await Promise.all(closedBy)).toEqual(['the gateway']);
  }, 30_000);

  it("lets the loop's own turns skip its body parser: their raw body streams to the upstream, past bodyLimit too", async () => {
    const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
    const client = await listen({ upstream: { url: model.url }, trellis, bindings, bodyLimit: '150b', logger: quiet });
    const { data, response } = await client.chat.completions
      .create({ model: 'agent', messages: [{ role: 'user', content: 'time?' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('It is 08:00.');
    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    // each self-call is over the limit (tools, then the tool turn): express.json() would have refused it with a 413
    expect(model.requests.map((r) => Buffer.byteLength(JSON.stringify(r.body)) > 150)).toEqual([true, true]);
    expect(model.requests.every((r) => r.headers['x-mcp-internal'] === undefined)).toBe(true);

    // a client's request still meets the limit, and so does a forged marker's: parsed, then to the normal handler, never looped
    const url = `${client.baseURL}/chat/completions`;
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post({ model: 'agent', messages: [{ role: 'user', content: 'x'.repeat(200) }] })).status).toBe(413);
    model.requests.length = 0;
    const marker = `${(Date.now() + 60_000).toString(36)}.${'A'.repeat(92)}`;
    const forged = await post(
      { model: 'agent', messages: [{ role: 'user', content: 'time?' }] },
      { 'x-mcp-internal': marker },
    );
    expect(forged.status).toBe(200);
    expect(forged.headers.get('x-agent-loop-turns')).toBeNull();
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].body.tools).toBeUndefined();
    const forgedTooBig = await post(
      { model: 'agent', messages: [{ role: 'user', content: 'x'.repeat(200) }] },
      { 'x-mcp-internal': marker },
    );
    expect(forgedTooBig.status).toBe(413);
  });

  it('says at start-up that /metrics is off when prom-client is not installed, and not when the config turned it off', async () => {
    let gateway: typeof Gateway | undefined;
    jest.isolateModules(() => {
      jest.doMock('prom-client', () => {
        throw new Error("Cannot find module 'prom-client'");
      });
      gateway = jest.requireActual<typeof Gateway>('../../lib/gateway/gateway');
    });
    const { logger, lines } = memoryLogger('info');
    const app = gateway!.createGateway({ upstream: { url: 'http://127.0.0.1:9/v1' }, logger });
    gateway!.createGateway({ upstream: { url: 'http://127.0.0.1:9/v1' }, metrics: false, logger });
    jest.dontMock('prom-client');
    expect(lines).toEqual([
      {
        level: 'info',
        message:
          'agent-loop metrics are off: prom-client is not installed (npm install prom-client serves them on /metrics)',
      },
    ]);
    await request(app).get('/metrics').expect(404);
  });
});
