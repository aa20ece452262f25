import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { abortAtFirstPart } from '../helpers/streams';
import axios from 'axios';
import type { Request } from 'express';
import request from 'supertest';
import { isInternalRequest } from '../../lib';
import { selfCallAdapter } from '../../lib/self-call/axios-adapter';
import { frontDoorOf, InProcessAgents } from '../../lib/self-call/in-process';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { buildGateway, expressVersions } from '../helpers/gateway';
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
  const agents = new InProcessAgents();
  const client = axios.create({
    adapter: selfCallAdapter({ http: new http.Agent(), https: new https.Agent() }),
    validateStatus: null,
    transformRequest: [],
    transformResponse: [],
  });
  afterAll(() => agents.destroy());

  /** A server whose first request (from a real socket) is the front door the in-process calls go to. */
  async function frontDoor(listener: http.RequestListener) {
    let front: ReturnType<typeof frontDoorOf>;
    const server = http.createServer((req, res) => {
      if (req.url === '/find') {
        front = frontDoorOf(req as Request);
        return res.end();
      }
      listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => http.get(`http://127.0.0.1:${port}/find`, { agent: false }, resolve));
    const agent = agents.agentFor(front!);
    return {
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      agent,
      server,
      front: front!,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('streams a reply part by part, a character split across parts included', async () => {
    const reply = Buffer.from('data: Grüße\n\n');
    let rest!: () => void;
    const door = await frontDoor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(reply.subarray(0, 9)); // cuts "ü" in two
      rest = () => res.end(reply.subarray(9));
    });
    const response = await client.post<Readable>(door.url, '{}', { httpAgent: door.agent, responseType: 'stream' });
    const parts: Buffer[] = [];
    // the rest is written only once the first part was read: two parts on a loaded machine too
    for await (const part of response.data) if (parts.push(part as Buffer) === 1) rest();
    await door.close();
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts).toString('utf8')).toBe('data: Grüße\n\n');
  });

  it("hands a lone call's reply over before the event loop's check phase, and waits for it while other calls are in flight", async () => {
    const order: string[] = [];
    let held: http.ServerResponse | undefined;
    const door = await frontDoor((req, res) => {
      if (req.url?.endsWith('?hold')) return void (held = res);
      setImmediate(() => order.push('check phase'));
      res.end('ok');
    });
    const call = (query = '') =>
      new Promise<void>((resolve, reject) => {
        const sent = http.request(`${door.url}${query}`, { agent: door.agent, method: 'POST' }, (res) => {
          order.push('reply');
          res.resume().once('end', resolve);
        });
        sent.once('error', reject).end();
      });
    await call();
    await until(() => order.length === 2);
    expect(order.splice(0)).toEqual(['reply', 'check phase']);
    const holding = call('?hold');
    await until(() => held !== undefined);
    await call();
    await until(() => order.length === 2);
    expect(order.splice(0)).toEqual(['check phase', 'reply']);
    held?.end();
    await holding;
    await door.close();
  });

  it('carries a body larger than a reader takes at once, both ways', async () => {
    const large = 'x'.repeat(3 * 1024 * 1024);
    const door = await frontDoor((req, res) => {
      let length = 0;
      req.on('data', (part: Buffer) => (length += part.length));
      req.on('end', () => res.end(`${length}:${large}`));
    });
    const response = await client.post<string>(door.url, large, { httpAgent: door.agent });
    await door.close();
    expect(response.data).toBe(`${large.length}:${large}`);
  });

  it('aborts mid-stream: the reading stops, the server sees its request close, the signal keeps no listener', async () => {
    let serverSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const door = await frontDoor((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n'); // and never ends
      req.once('close', serverSawClose);
    });
    const controller = new AbortController();
    const response = await client.post<Readable>(door.url, '{}', {
      httpAgent: door.agent,
      responseType: 'stream',
      signal: controller.signal,
    });
    const { parts, error } = await abortAtFirstPart(response.data, controller);
    expect(error?.message).toBe('aborted');
    await closed;
    await door.close();
    expect(parts).toEqual(['data: one\n\n']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

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

  it('finds no front door, so the socket transport serves, where the socket has no HTTP server that answers requests', () => {
    const bare = http.createServer();
    const found = (socket: unknown) => frontDoorOf({ socket } as Request);
    expect(found({})).toBeUndefined();
    expect(found({ server: new net.Server() })).toBeUndefined();
    expect(found({ server: bare })).toBeUndefined();
    const h2 = http2.createSecureServer({ allowHTTP1: true }, () => undefined);
    expect(found({ server: h2, encrypted: true })).toBeUndefined();
    bare.on('request', () => undefined);
    expect(found({ server: bare, localAddress: '::ffff:127.0.0.1', localPort: 3000 })).toEqual({
      server: bare,
      localAddress: '::ffff:127.0.0.1',
      localPort: 3000,
      encrypted: false,
      remoteAddress: '::ffff:127.0.0.1',
      remoteFamily: 'IPv6',
    });
    expect(found({ server: bare, localAddress: '::1', localPort: 3000 })).toMatchObject({
      remoteAddress: '::1',
      remoteFamily: 'IPv6',
    });
  });
});
