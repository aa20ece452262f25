import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { localTrellis } from '../../lib/trellis/local';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { createGateway } from '../../lib/gateway/gateway';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { memoryLogger } from '../helpers/memory-logger';
import { postRaw } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const trellis = localTrellis([{ name: 'clock_now', handler: () => '2026-11-30T08:00:00Z' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
const question = { model: 'agent', messages: [{ role: 'user', content: 'what time is it?' }] };

interface InternalConnection {
  socket: Socket;
  /** who ended the connection: the client (its FIN came first) or this front door */
  closedBy?: 'client' | 'server';
}

/**
 * A front door serving the gateway that keeps track of the connections the loop's own turns came over. `drop`
 * decides, per turn, whether the front door destroys its connection instead of answering: as a server whose
 * keep-alive timeout fires just as a request comes in on an idle connection.
 */
async function frontDoor(options: Record<string, unknown>, tune: (server: http.Server) => void = () => {}) {
  let drop: (connection: InternalConnection) => boolean = () => false;
  const internal = new Map<Socket, InternalConnection>();
  let attempts = 0;
  let app: http.RequestListener = () => {};
  const server = http.createServer(function door(req, res) {
    if (req.headers['x-mcp-internal'] === undefined) return app(req, res);
    attempts += 1;
    let connection = internal.get(req.socket);
    if (!connection) {
      const known: InternalConnection = (connection = { socket: req.socket });
      internal.set(req.socket, known);
      req.socket.once('end', () => (known.closedBy ??= 'client'));
      req.socket.once('close', () => (known.closedBy ??= 'server'));
    }
    if (drop(connection)) return req.socket.destroy();
    app(req, res);
  });
  tune(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gateway = createGateway({
    upstream: { url: model.url },
    trellis,
    bindings,
    logger: memoryLogger('error').logger,
    ...options,
    ...(options.selfUrl === true ? { selfUrl: url } : {}),
  });
  app = gateway as unknown as http.RequestListener;
  const loop = gateway.locals.agentLoop as AgentLoopMiddleware;
  return {
    url,
    connections: () => [...internal.values()],
    attempts: () => attempts,
    dropWhen(rule: typeof drop) {
      drop = rule;
    },
    close: async () => {
      await loop.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let model: ModelServer;
let door: Awaited<ReturnType<typeof frontDoor>> | undefined;
beforeEach(async () => {
  model = await startModelServer([{ toolCalls: [{ name: 'clock_now' }] }, { content: 'It is 08:00 UTC.' }]);
});
afterEach(async () => {
  await door?.close();
  door = undefined;
  await model.close();
});

async function answered(url: string) {
  const { status, headers, body } = await postRaw(url, question);
  return {
    status,
    stop: headers['x-agent-loop-stop'],
    turns: headers['x-agent-loop-turns'],
    content: JSON.parse(body).choices[0].message.content,
  };
}

describe.each([
  ["selfCall: 'socket'", { selfCall: 'socket' }],
  ['selfUrl', { selfUrl: true }],
])('self-calls over a socket (%s)', (_name, options) => {
  it('sends a turn once more, on a new connection, when its pooled connection is closed before any byte of the reply', async () => {
    door = await frontDoor(options);
    expect(await answered(door.url)).toEqual({ status: 200, stop: 'final', turns: '2', content: 'It is 08:00 UTC.' });
    const pooled = new Set(door.connections());
    door.dropWhen((connection) => pooled.has(connection));

    expect(await answered(door.url)).toEqual({ status: 200, stop: 'final', turns: '2', content: 'It is 08:00 UTC.' });
    expect(door.attempts()).toBe(5);
    expect(model.requests).toHaveLength(4);
  });

  it('sends a turn at most once more: a loop whose retry fails too falls through to the normal handler', async () => {
    door = await frontDoor(options);
    await answered(door.url);
    door.dropWhen(() => true);

    const fallThrough = await answered(door.url);
    expect(fallThrough).toEqual({ status: 200, stop: undefined, turns: undefined, content: null });
    expect(door.attempts()).toBe(4);
    expect(model.requests.map((request) => Array.isArray(request.body.tools))).toEqual([true, true, false]);
  });

  it('drops an idle connection within 4 s when the front door gives no hint (a server that closes after 5 s idle)', async () => {
    door = await frontDoor(options, (server) => {
      server.keepAliveTimeout = 0;
      server.on('connection', (socket: Socket) => socket.setTimeout(5000, () => socket.destroy()));
    });
    await answered(door.url);
    await eventually(
      () => expect(door!.connections().every(({ closedBy }) => closedBy !== undefined)).toBe(true),
      15_000,
    );
    expect(door.connections().map(({ closedBy }) => closedBy)).toEqual(['client']);
  }, 20_000);
});

it("with selfCall: 'socket', drops an idle connection before the keepAliveTimeout of the server that took the request does, whatever Keep-Alive hint the proxied reply carries", async () => {
  door = await frontDoor({ selfCall: 'socket' }, (server) => (server.keepAliveTimeout = 2500));
  await answered(door.url);
  await eventually(
    () => expect(door!.connections().every(({ closedBy }) => closedBy !== undefined)).toBe(true),
    15_000,
  );
  expect(door.connections().map(({ closedBy }) => closedBy)).toEqual(['client']);
}, 20_000);
