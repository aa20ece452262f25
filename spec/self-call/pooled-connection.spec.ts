import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  dropIdleConnections,
  IDLE_SOCKET_MS,
  IdleBounds,
  lostOnPooledConnection,
} from '../../lib/self-call/pooled-connection';
import type { FrontDoor } from '../../lib/self-call/front-door';

/** One request; resolves once its connection went back to the pool. */
function get(agent: http.Agent, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    agent.once('free', () => setImmediate(resolve));
    http.get({ host: '127.0.0.1', port, agent }, (res) => res.resume()).on('error', reject);
  });
}
const freeSockets = (agent: http.Agent) => Object.values(agent.freeSockets).flatMap((sockets) => sockets ?? []);

describe('self-calls over pooled connections to a front door', () => {
  let server: http.Server;
  let port: number;
  let agent: http.Agent;
  beforeEach(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true });
  });
  afterEach(async () => {
    agent.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const front = (): FrontDoor => ({
    server,
    localAddress: '::ffff:127.0.0.1',
    localPort: port,
    remoteAddress: '127.0.0.1',
    remoteFamily: 'IPv4',
    encrypted: false,
  });

  it('keeps an idle connection to a known front door shorter-lived than its keepAliveTimeout (at most IDLE_SOCKET_MS)', async () => {
    const bounds = new IdleBounds([agent]);
    server.keepAliveTimeout = 2000;
    bounds.know(front());
    await get(agent, port);
    expect(freeSockets(agent).map((socket) => socket.timeout)).toEqual([1600]);
    server.keepAliveTimeout = 60_000;
    bounds.know(front());
    await get(agent, port);
    expect(freeSockets(agent).map((socket) => socket.timeout)).toEqual([IDLE_SOCKET_MS]);
  });

  it('leaves connections to other hosts as the agent pools them', async () => {
    new IdleBounds([agent]);
    await get(agent, port);
    expect(freeSockets(agent).map((socket) => socket.timeout)).not.toEqual([IDLE_SOCKET_MS]);
  });

  it('closes the idle connections', async () => {
    await get(agent, port);
    const [socket] = freeSockets(agent);
    dropIdleConnections(agent);
    expect(socket.destroyed).toBe(true);
  });

  it('tells a request lost on a reused connection before any reply (safe to send again) from any other failure', () => {
    const live = new AbortController().signal;
    expect(lostOnPooledConnection({ request: { reusedSocket: true } }, live)).toBe(true);
    expect(lostOnPooledConnection({ request: { reusedSocket: true, res: {} } }, live)).toBe(false);
    expect(lostOnPooledConnection({ request: { reusedSocket: false } }, live)).toBe(false);
    expect(lostOnPooledConnection({ request: { reusedSocket: true } }, AbortSignal.abort())).toBe(false);
    expect(lostOnPooledConnection(new Error('ECONNREFUSED'), live)).toBe(false);
  });
});
