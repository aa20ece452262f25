import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { isInternalRequest } from '../../lib';
import { InProcessAgents } from '../../lib/self-call/in-process';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { buildGateway, expressVersions } from '../helpers/gateway';
import { inProcessDoors } from '../helpers/in-process-door';
import { until } from '../helpers/store-contract';

const tls = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'tls', name));
const trellis = localTrellis([{ name: 'clock_now', handler: () => '2026-11-30T08:00:00Z' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
const body = { model: 'agent', messages: [{ role: 'user', content: 'what time is it?' }] };

interface Sighting {
  internal: boolean;
  ip?: string;
  secure: boolean;
  localPort?: number;
  socketless: boolean;
  socket: net.Socket;
}

/** A gateway on a real server (plain or TLS), with a middleware before agentLoop that notes what each request shows it. */
async function serve(
  model: ModelServer,
  express: (typeof expressVersions)[number][1],
  options: Record<string, unknown> = {},
  secure = false,
) {
  const built = buildGateway(model.url, { trellis, bindings, ...options }, express);
  const sightings: Sighting[] = [];
  const outer = express();
  outer.use(function look(req, _res, next) {
    sightings.push({
      internal: isInternalRequest(req),
      ip: req.ip,
      secure: req.secure,
      localPort: req.socket.localPort,
      socketless: !(req.socket instanceof net.Socket),
      socket: req.socket,
    });
    next();
  });
  outer.use(built.app);
  const server = secure
    ? https.createServer({ key: tls('key.pem'), cert: tls('cert.pem') }, outer)
    : http.createServer(outer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { ...built, server, port, sightings, close };
}

function post(port: number, payload: unknown, secure: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ca: tls('cert.pem'),
    };
    const sent = (secure ? https : http).request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (part: string) => (text += part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    sent.on('error', reject);
    sent.end(JSON.stringify(payload));
  });
}

describe.each(expressVersions)('the in-process self-call under %s', (_name, express) => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00 UTC.' }]);
  });
  afterEach(() => model.close());

  it.each([
    ['HTTP', false],
    ['HTTPS', true],
  ])(
    'runs every turn through the %s front door without a socket: loopback address, the front door port, encrypted as it is',
    async (_scheme, secure) => {
      const gateway = await serve(model, express, {}, secure);
      const { status, text } = await post(gateway.port, body, secure);
      await gateway.loop.close();
      await gateway.close();
      expect(status).toBe(200);
      expect(JSON.parse(text).choices[0].message.content).toBe('It is 08:00 UTC.');
      const seen = gateway.sightings.map(({ socket: _socket, ...rest }) => rest);
      const turn = { internal: true, ip: '127.0.0.1', secure, localPort: gateway.port, socketless: true };
      expect(seen).toEqual([
        { internal: false, ip: '127.0.0.1', secure, localPort: gateway.port, socketless: false },
        turn,
        turn,
      ]);
      expect(model.requests.map((turn) => turn.headers['x-mcp-internal'])).toEqual([undefined, undefined]);
    },
  );

  it("takes loopback HTTP with selfCall: 'socket'", async () => {
    const gateway = await serve(model, express, { selfCall: 'socket' });
    await post(gateway.port, body, false);
    await gateway.loop.close();
    await gateway.close();
    expect(gateway.sightings.map((seen) => [seen.internal, seen.socketless, seen.ip])).toEqual([
      [false, false, '127.0.0.1'],
      [true, false, '127.0.0.1'],
      [true, false, '127.0.0.1'],
    ]);
  });

  it('serves an app handed to supertest, which listens on a server of its own', async () => {
    const { app, loop, seen } = buildGateway(model.url, { trellis, bindings }, express);
    const res = await request(app).post('/v1/chat/completions').send(body).expect(200);
    await loop.close();
    expect(res.body.choices[0].message.content).toBe('It is 08:00 UTC.');
    expect(seen.map((sighting) => sighting.internal)).toEqual([false, true, true]);
  });

  it('cuts a streamed turn when the client goes away: the front door sees the turn close, the model sees it aborted', async () => {
    model.setScript([{ content: 'thinking', stream: { drop: 'trickle', everyMs: 20 } }]);
    const gateway = await serve(model, express);
    const closed: boolean[] = [];
    gateway.server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.headers['x-mcp-internal']) res.once('close', () => closed.push(res.writableFinished));
    });
    const client = http.request(
      {
        host: '127.0.0.1',
        port: gateway.port,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.once('data', () => client.destroy());
      },
    );
    client.on('error', () => undefined);
    client.end(JSON.stringify({ ...body, stream: true }));
    await until(() => closed.length === 1 && model.requests[0]?.abortedAt !== undefined);
    expect(closed).toEqual([false]);
    expect(gateway.sightings[1].socket.destroyed).toBe(true);
    await gateway.loop.close();
    await gateway.close();
  });
});
describe('the in-process transport', () => {
  const { client, frontDoor } = inProcessDoors();

  it('keeps its connection alive between calls and closes it, and its server listener, on destroy()', async () => {
    const sockets: net.Socket[] = [];
    const door = await frontDoor((req, res) => {
      sockets.push(req.socket);
      res.end('ok');
    });
    const own = new InProcessAgents();
    const server = door.server;
    const before = server.listenerCount('close');
    const agent = own.agentFor(door.front);
    expect(server.listenerCount('close')).toBe(before + 1);
    expect(own.agentFor(door.front)).toBe(agent);
    for (let call = 0; call < 3; call++)
      expect((await client.post(door.url, '{}', { httpAgent: agent })).data).toBe('ok');
    expect(sockets).toEqual([sockets[0], sockets[0], sockets[0]]);
    own.destroy();
    await until(() => sockets[0].destroyed);
    expect(server.listenerCount('close')).toBe(before);
    await door.close();
  });

  it('forgets the agent of a server that closed, its idle connection closed', async () => {
    let socket!: net.Socket;
    const door = await frontDoor((req, res) => {
      socket = req.socket;
      res.end('ok');
    });
    const own = new InProcessAgents();
    const agent = own.agentFor(door.front);
    await client.post(door.url, '{}', { httpAgent: agent });
    await door.close();
    expect(socket.destroyed).toBe(true);
    expect(own.agentFor(door.front)).not.toBe(agent);
    own.destroy();
  });
});
