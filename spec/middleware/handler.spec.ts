import express from 'express';
import { createProxyMiddleware, fixRequestBody } from 'http-proxy-middleware';
import request from 'supertest';
import { agentLoop, isInternalRequest } from '../../lib';
import { signMarker } from '../../lib/self-call/marker';
import { tokenSecret } from '../../lib/shared/signed-token';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { buildGateway } from '../helpers/gateway';
import { bindings, body, clockScript, trellis } from '../helpers/clock-app';
import { memoryLogger } from '../helpers/memory-logger';

describe("agentLoop's handler: which requests start a loop", () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer(clockScript);
  });
  afterEach(() => model.close());

  const foreign = signMarker(Buffer.from('another gateway secret, 32+ chars long'), 'loop', Date.now() + 60_000);
  it.each([
    ['random junk', 'let-me-in'],
    ['signed under another secret', foreign],
    ['a signature of the wrong length', foreign.slice(0, -3)],
    ['the same header twice', [foreign, foreign]],
  ])(
    'never trusts a marker that is %s, and never starts a loop for it: the normal handler answers',
    async (_case, marker) => {
      const { logger, lines } = memoryLogger('warn');
      const { app, seen } = buildGateway(model.url, { trellis, bindings, logger });
      const res = await request(app)
        .post('/v1/chat/completions')
        .set('x-mcp-internal', marker as string)
        .send(body)
        .expect(200);
      expect(res.headers['x-agent-loop-turns']).toBeUndefined();
      expect(seen).toEqual([{ marker: true, internal: false }]);
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0].body.tools).toBeUndefined();
      expect(model.requests[0].headers['x-mcp-internal']).toBeUndefined();
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          message:
            'agent-loop ignored an X-MCP-Internal marker that does not verify; the request goes to the normal handler without the loop',
        }),
      ]);
    },
  );

  it('takes the marker off every request it sees, on any path; isInternalRequest before it only asked', async () => {
    const internalSecret = 'the secret of the agentLoop on this app, long enough';
    const marker = signMarker(tokenSecret(internalSecret), 'loop', Date.now() + 60_000);
    const hasRaw = (raw: string[]) => raw.some((name) => name.toLowerCase() === 'x-mcp-internal');
    const app = express();
    const before: unknown[] = [];
    app.use(function asks(req, _res, next) {
      before.push([isInternalRequest(req), req.headers['x-mcp-internal'], hasRaw(req.rawHeaders)]);
      next();
    });
    app.use(agentLoop({ trellis, bindings, internalSecret, logger: memoryLogger('error').logger }));
    app.get('/v1/models', (req, res) =>
      res.json({
        header: req.headers['x-mcp-internal'] ?? null,
        raw: hasRaw(req.rawHeaders),
        internal: isInternalRequest(req),
      }),
    );
    const res = await request(app).get('/v1/models').set('x-mcp-internal', marker).expect(200);
    expect(before).toEqual([[true, marker, true]]);
    expect(res.body).toEqual({ header: null, raw: false, internal: true });
  });

  it.each([
    ['a model no binding matches', { ...body, model: 'plain' }, 200],
    ['no messages', { model: 'agent' }, 400],
    ['messages that are not a list', { model: 'agent', messages: 'hi' }, 400],
    ['a message without a role', { model: 'agent', messages: [{ content: 'hi' }] }, 200],
  ])('passes a request with %s to the normal handler untouched', async (_case, sent, status) => {
    model.setScript([{ content: 'plain answer' }]);
    const { app } = buildGateway(model.url, { trellis, bindings });
    await request(app).post('/v1/chat/completions').send(sent).expect(status);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].body).toEqual(sent);
  });

  it('warns once, and passes requests on, when no body parser ran before it', async () => {
    const { logger, lines } = memoryLogger('warn');
    const app = express();
    app.use(agentLoop({ trellis, bindings, logger }));
    app.post('/v1/chat/completions', (_req, res) => void res.json({ passed: true }));
    await request(app).post('/v1/chat/completions').send(body).expect(200, { passed: true });
    await request(app).post('/v1/chat/completions').send(body).expect(200, { passed: true });
    expect(lines).toEqual([
      expect.objectContaining({
        message:
          'agent-loop sees no parsed body: mount express.json() before agentLoop(); requests pass on untouched until then',
      }),
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it('matches bindings by header and by function, first match first', async () => {
    const { app } = buildGateway(model.url, {
      trellis,
      bindings: [
        { name: 'by-header', match: { header: { 'X-Agent': 'clock*' } }, hierarchy: 'clock_now', maxTurns: 1 },
        { name: 'by-function', match: (req) => req.headers['x-tenant'] === 'acme', hierarchy: 'clock_now' },
      ],
    });
    const byHeader = await request(app).post('/v1/chat/completions').set('x-agent', 'clockwork').send(body).expect(200);
    expect(byHeader.headers['x-agent-loop-stop']).toBe('max_turns');
    const byFunction = await request(app).post('/v1/chat/completions').set('x-tenant', 'acme').send(body).expect(200);
    expect(byFunction.headers['x-agent-loop-stop']).toBe('final');
  });

  it("passes another agentLoop's turns on (a marker under its own secret), never taking them for its own", async () => {
    const { logger: first } = memoryLogger('warn');
    const { logger: second, lines } = memoryLogger('debug');
    const app = express();
    app.use(express.json());
    app.use(
      agentLoop({ trellis, bindings, logger: first, internalSecret: 'the first agentLoop of this app, long enough' }),
    );
    app.use(
      agentLoop({
        trellis,
        bindings: [{ ...bindings[0], name: 'other' }],
        logger: second,
        internalSecret: 'the second agentLoop of this app, long enough',
      }),
    );
    app.post(
      '/v1/chat/completions',
      createProxyMiddleware({ target: new URL(model.url).origin, on: { proxyReq: fixRequestBody } }),
    );
    const res = await request(app).post('/v1/chat/completions').send(body).expect(200);

    expect(res.body.choices[0].message.content).toBe('It is 08:00 UTC.');
    expect(model.requests).toHaveLength(2);
    expect(lines.map((line) => line.message)).toEqual([
      "agent-loop passed on another agentLoop's turn",
      "agent-loop passed on another agentLoop's turn",
    ]);
  });
});
