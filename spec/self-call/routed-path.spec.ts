import http from 'node:http';
import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import { agentLoop, skipWhenInternal } from '../../lib';
import { isAmbiguousPath } from '../../lib/self-call/routed-path';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';

describe('isAmbiguousPath', () => {
  it.each([
    ['/v1/chat/completions', false],
    ['/v1/chat/completions?next=../x&dot=%2e', false],
    ['//v1/chat/completions', false],
    ['/x/../v1/chat/completions', true],
    ['/x/%2e%2e/v1/chat/completions', true],
    ['/x/%2E./v1/chat/completions', true],
    ['/v1/./chat/completions', true],
    ['/v1%2fchat/completions', true],
    ['/x\\..\\v1/chat/completions', true],
    ['/v1/ch\u00e4t/completions', true],
    ['http://elsewhere/v1/chat/completions', true],
    [':99999/v1/chat/completions', true],
  ])('%s: %s', (path, ambiguous) => {
    expect(isAmbiguousPath(path)).toBe(ambiguous);
  });
});

/** POSTs to `path` exactly as written: no client library normalises it on the way. */
function postAt(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/`,
      { method: 'POST', path, headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a path-scoped guardrail (app.use("/v1", guard)) sees every conversation the loop runs', () => {
  let model: ModelServer;
  let front: Listening;
  let guarded: string[];
  const { logger, lines } = memoryLogger('warn');

  beforeEach(async () => {
    model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00 UTC.' }]);
    guarded = [];
    const app = express();
    app.use(express.json());
    app.use(
      '/v1',
      skipWhenInternal(function guard(req, res, next) {
        guarded.push(req.originalUrl);
        if (JSON.stringify(req.body).includes('forbidden'))
          return void res.status(403).json({ error: { message: 'blocked by the guardrail' } });
        next();
      }),
    );
    app.use(
      agentLoop({
        trellis: localTrellis([{ name: 'clock_now', handler: () => '08:00' }]),
        bindings: [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }],
        logger,
      }),
    );
    app.post(
      '/v1/chat/completions',
      createProxyMiddleware({ target: new URL(model.url).origin, on: { proxyReq: fixRequestBody } }),
    );
    front = await listen(app);
  });
  afterEach(async () => {
    await front.close();
    await model.close();
  });

  const ask = (content: string) => ({ model: 'agent', messages: [{ role: 'user', content }] });

  it('on the routed path: the guard blocks the client, and the loop never starts', async () => {
    const res = await postAt(front.url, '/v1/chat/completions', ask('something forbidden'));
    expect(res.status).toBe(403);
    expect(guarded).toEqual(['/v1/chat/completions']);
    expect(model.requests).toHaveLength(0);
  });

  it.each(['/x/../v1/chat/completions', '/x/%2e%2e/v1/chat/completions', '/x/%2E%2E/v1/chat/completions'])(
    'on %s, which Express routes past the guard: the loop does not run either, so no turn reaches the model unguarded',
    async (path) => {
      const res = await postAt(front.url, path, ask('something forbidden'));
      expect(res.headers['x-agent-loop-id']).toBeUndefined();
      expect(res.status).toBe(404);
      expect(model.requests).toHaveLength(0);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message:
            'agent-loop does not run on a path with dot segments or encoded dots or slashes; the request goes to the normal handler',
        }),
      );
    },
  );
});
