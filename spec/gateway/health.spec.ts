import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startMcpServer } from '../../fixtures/mcp-server';
import { startModelServer } from '../../fixtures/model-server';
import { createGateway } from '../../lib/gateway/gateway';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';

const notes = { name: 'notes', match: { model: 'agent-*' }, hierarchy: ['clock_now'] };
const quiet = memoryLogger('error').logger;

/** a loopback URL nothing listens on */
async function closedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('/healthz and /readyz', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  function gateway(upstream: string, mcp: string) {
    const app = createGateway({
      upstream: { url: `${upstream}/v1` },
      trellis: { mcp: { url: `${mcp}/mcp` } },
      bindings: [notes],
      logger: quiet,
      metrics: false,
    });
    closers.push(() => (app.locals.agentLoop as AgentLoopMiddleware).close());
    return app;
  }

  it('is live while not ready, and says what is down', async () => {
    const down = await closedUrl();
    const app = gateway(down, down);
    await request(app).get('/healthz').expect(200, { ok: true, down: {} });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.body).toEqual({
      ok: false,
      down: {
        // the MCP adapter's own reason, whatever its wording
        'trellis notes': expect.stringMatching(new RegExp(`^Trellis .*${down}/mcp`)),
        upstream: `connect ECONNREFUSED ${down.slice('http://'.length)}`,
      },
    });
  });

  it('is ready once Trellis listed its tools and the upstream answered, and stays so', async () => {
    const mcp = await startMcpServer();
    const model = await startModelServer();
    closers.push(
      () => model.close(),
      () => mcp.close(),
    );
    const app = gateway(model.url, mcp.url);
    await request(app).get('/readyz').expect(200, { ok: true, down: {} });
    await mcp.close();
    await request(app).get('/readyz').expect(200, { ok: true, down: {} });
  });

  it('probes an upstream on a port that fetch() refuses (10080)', async () => {
    const mcp = await startMcpServer();
    const upstream = http.createServer((req, res) =>
      res.writeHead(req.url === '/v1/models' ? 200 : 404).end('{"data":[]}'),
    );
    const listening = await new Promise<boolean>((resolve) =>
      upstream.once('error', () => resolve(false)).listen(10080, '127.0.0.1', () => resolve(true)),
    );
    closers.push(
      () => mcp.close(),
      () => new Promise((resolve) => upstream.close(resolve)),
    );
    if (!listening) return; // the port is taken on this machine
    const app = gateway('http://127.0.0.1:10080', mcp.url);
    await request(app).get('/readyz').expect(200, { ok: true, down: {} });
  });

  it('takes a proxied reply as the upstream answering, and a 5xx as not', async () => {
    const mcp = await startMcpServer();
    const model = await startModelServer([{ status: 503 }]);
    closers.push(
      () => model.close(),
      () => mcp.close(),
    );
    const app = gateway(model.url, mcp.url);
    await request(app)
      .post('/v1/chat/completions')
      .send({ model: 'plain', messages: [{ role: 'user', content: 'hi' }] })
      .expect(503);
    await model.close();
    expect((await request(app).get('/readyz').expect(503)).body.down).toEqual({
      upstream: expect.stringMatching(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
    });
  });
});
