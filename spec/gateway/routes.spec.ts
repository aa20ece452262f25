import { AgentLoopError } from '../../lib';
import { createGateway } from '../../lib/gateway/gateway';
import { INFERENCE_ROUTES } from '../../lib/gateway/routes';
import { recordingUpstream, send, serveGateway } from '../helpers/upstream';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe("the ready gateway's routes", () => {
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
  });

  it.each([
    ['POST', '/v1/chat/completions'],
    ['POST', '/v1/responses'],
    ['POST', '/v1/messages'],
    ['POST', '/v1/completions'],
    ['POST', '/v1/embeddings'],
    ['GET', '/v1/models'],
    ['GET', '/v1/models/gpt-4o-mini'],
    ['GET', '/v1/models?limit=2'],
  ])('forwards the inference route %s %s with the operator key', async (method, path) => {
    gateway = await serveGateway({ upstream: { url: upstream.url, apiKeyEnv: 'TEST_OPERATOR_KEY' } });
    expect((await send(gateway.port, method, path)).status).toBe(200);
    // Anthropic's Messages API reads its key from x-api-key
    const key = path === '/v1/messages' ? { apiKey: 'operator-secret' } : { authorization: 'Bearer operator-secret' };
    expect(upstream.seen).toEqual([{ method, url: path, ...key }]);
  });

  it.each([
    ['DELETE', '/v1/files/file-abc123'],
    ['GET', '/v1/organization/admin_api_keys'],
    ['GET', '/v1/files'],
    ['POST', '/v1/fine_tuning/jobs'],
    ['DELETE', '/v1/models/ft:gpt-4o-mini:org:custom'],
    ['GET', '/v1/chat/completions'],
    ['DELETE', '/v1/responses/resp_123'],
    ['POST', '/v1/chat/completions/extra'],
    ['POST', '/v1'],
    ['GET', '/admin'],
  ])("answers %s %s with 404 in OpenAI's error shape and forwards nothing", async (method, path) => {
    gateway = await serveGateway({ upstream: { url: upstream.url, apiKeyEnv: 'TEST_OPERATOR_KEY' } });
    const { status, body } = await send(gateway.port, method, path);
    expect(status).toBe(404);
    expect(body).toEqual({
      error: {
        message: `this gateway does not forward ${method} ${path}`,
        type: 'invalid_request_error',
        code: 'unknown_route',
      },
    });
    expect(upstream.seen).toEqual([]);
  });

  it.each([
    '/v1/../x',
    '/v1/models/../../organization/admin_api_keys',
    '/v1/%2e%2e/x',
    '/v1/%2E%2e/organization/admin_api_keys',
    '/v1/models/..%2F..%2Forganization%2Fadmin_api_keys',
    '/v1/files%2ffile-abc',
    '/v1/./models',
    '/v1/models/.',
    '/v1\\..\\x',
    '/x/../v1/chat/completions',
    '/x/%2e%2e/v1/chat/completions',
  ])("refuses the path %s with 400 in OpenAI's error shape and forwards nothing", async (path) => {
    gateway = await serveGateway({ upstream: { url: upstream.url, apiKeyEnv: 'TEST_OPERATOR_KEY' } });
    const { status, body } = await send(gateway.port, 'POST', path);
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        message: `the path ${path} has dot segments or encoded dots, slashes or backslashes: this gateway forwards plain paths only`,
        type: 'invalid_request_error',
        code: 'invalid_path',
      },
    });
    expect(upstream.seen).toEqual([]);
  });

  it('forwards what upstream.routes lists instead, a segment * matching any one segment', async () => {
    gateway = await serveGateway({
      upstream: {
        url: upstream.url,
        apiKeyEnv: 'TEST_OPERATOR_KEY',
        routes: [...INFERENCE_ROUTES, 'GET files', 'DELETE files/*', '* vector_stores/*/files'],
      },
    });
    expect((await send(gateway.port, 'DELETE', '/v1/files/file-abc123')).status).toBe(200);
    expect((await send(gateway.port, 'GET', '/v1/files')).status).toBe(200);
    expect((await send(gateway.port, 'POST', '/v1/vector_stores/vs_1/files')).status).toBe(200);
    expect((await send(gateway.port, 'DELETE', '/v1/files/file-abc123/content')).status).toBe(404);
    expect((await send(gateway.port, 'GET', '/v1/organization/admin_api_keys')).status).toBe(404);
    expect(upstream.seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'DELETE /v1/files/file-abc123',
      'GET /v1/files',
      'POST /v1/vector_stores/vs_1/files',
    ]);
  });

  it("takes the wires' route grammar too: a {name} parameter, a literal : after one", async () => {
    gateway = await serveGateway({
      upstream: {
        url: upstream.url,
        apiKeyEnv: 'TEST_OPERATOR_KEY',
        routes: ['DELETE files/{file}', 'POST models/{model}:countTokens'],
      },
    });
    expect((await send(gateway.port, 'DELETE', '/v1/files/file-abc123')).status).toBe(200);
    expect((await send(gateway.port, 'POST', '/v1beta/models/gemini-2.5-flash:countTokens')).status).toBe(200);
    expect((await send(gateway.port, 'POST', '/v1beta/models/gemini-2.5-flash:generateContent')).status).toBe(404);
    expect((await send(gateway.port, 'DELETE', '/v1/files/a/b')).status).toBe(404);
    expect(upstream.seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'DELETE /v1/files/file-abc123',
      'POST /v1beta/models/gemini-2.5-flash:countTokens',
    ]);
  });

  it("forwards every wire's routes by default (Gemini's two, the model a parameter), and the model list", () => {
    expect(INFERENCE_ROUTES).toEqual([
      'POST chat/completions',
      'POST responses',
      'POST messages',
      'POST models/{model}:generateContent',
      'POST models/{model}:streamGenerateContent',
      'POST completions',
      'POST embeddings',
      'GET models',
      'GET models/*',
    ]);
  });

  it('keeps /healthz and /readyz open', async () => {
    gateway = await serveGateway({ upstream: { url: upstream.url } });
    expect(await send(gateway.port, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true, down: {} } });
    expect(await send(gateway.port, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true, down: {} } });
  });

  it.each([
    [['GET ../files'], 'option \'upstream.routes[0]\' is "GET ../files"'],
    [['files'], 'option \'upstream.routes[0]\' is "files"'],
    [['GET /v1/files'], 'option \'upstream.routes[0]\' is "GET /v1/files"'],
    [['GET files/{a}{b}'], 'option \'upstream.routes[0]\' is "GET files/{a}{b}"'],
  ])('refuses upstream.routes %j at start-up, naming the entry and the form', (routes, message) => {
    const config = { upstream: { url: upstream.url, routes }, logger: quiet };
    expect(() => createGateway(config)).toThrow(AgentLoopError);
    expect(() => createGateway(config)).toThrow(
      `createGateway: ${message}; it must list what the gateway forwards under /v1 as 'METHOD path' (a segment * matches any one), e.g. ["POST chat/completions","POST responses"].`,
    );
  });
});
