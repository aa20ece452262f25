import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { Request } from 'express';

/** The socket fields middlewares read, as a loopback connection to the front door would show them. */
export interface FrontDoor {
  server: http.Server;
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remoteFamily: string;
  encrypted: boolean;
}

type Release = () => void;

/** Whether other self-calls of the same agent are in flight: then hand-overs wait for the check phase, together. */
type Crowded = () => boolean;

/**
 * One end of an in-process connection. What one end writes, the other reads after the writer's call returns (as a
 * socket would hand it over: never inside the writer's own call), on the next tick while this is the agent's only
 * self-call in flight, else in the event loop's check phase; a write is accepted at once, as a socket's kernel
 * buffer takes it, unless the other end's reader is full. Ending one end ends the other's reading; destroying one
 * end destroys the other, so an aborted self-call closes the server's request and response.
 */
class ConnectionEnd extends Duplex {
  peer!: ConnectionEnd;
  crowded!: Crowded;
  /** written, not yet handed to the peer; null is the end */
  private outbox: (Buffer | null)[] = [];
  /** the peer's reader was full at the last hand-over: the next write waits until it reads */
  private full = false;
  private held?: Release;
  readonly connecting = false;
  remoteAddress?: string;
  remoteFamily?: string;
  remotePort?: number;
  localAddress?: string;
  localPort?: number;
  encrypted?: boolean;
  server?: http.Server;

  constructor() {
    super({ allowHalfOpen: false, decodeStrings: true });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: Release): void {
    this.send(chunk);
    this.accept(done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: Release): void {
    this.send(chunks.length === 1 ? chunks[0].chunk : Buffer.concat(chunks.map(({ chunk }) => chunk)));
    this.accept(done);
  }

  override _final(done: Release): void {
    this.send(null);
    done();
  }

  /** This end's reader wants more: its writer may go on. */
  override _read(): void {
    this.peer.release();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    process.nextTick(closePeer, this);
    done(error);
  }

  /** Hands what was written since the last tick to the peer as one chunk, as a socket's reader gets it in one read. */
  handOver(): void {
    const { peer, outbox } = this;
    this.outbox = [];
    if (peer.destroyed) return;
    const ended = outbox[outbox.length - 1] === null;
    const chunks = (ended ? outbox.slice(0, -1) : outbox) as Buffer[];
    if (chunks.length > 0 && !peer.push(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))) this.full = true;
    if (ended) peer.push(null);
  }

  private send(chunk: Buffer | null): void {
    if (this.outbox.push(chunk) !== 1) return;
    // Under many concurrent loops, in the event loop's check phase, as a socket's data comes in its poll phase: one
    // turn of the event loop then hands over what many connections wrote (a tick of its own each cost a third of
    // the throughput at 64 clients). A self-call alone has nothing to wait for: on the next tick, a whole pass of
    // the event loop sooner, twice a turn (bench/trace.ts).
    if (this.crowded()) setImmediate(handOver, this);
    else process.nextTick(handOver, this);
  }

  private accept(done: Release): void {
    if (this.full) this.held = done;
    else done();
  }

  private release(): void {
    this.full = false;
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  // What net.Socket offers and http's client, agent and server call: nothing to set on a connection in memory.
  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setTimeout(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  address(): { address?: string; family?: string; port?: number } {
    return { address: this.localAddress, family: this.remoteFamily, port: this.localPort };
  }
}

function handOver(end: ConnectionEnd): void {
  end.handOver();
}

function closePeer(end: ConnectionEnd): void {
  end.handOver();
  if (!end.peer.destroyed) end.peer.destroy();
}

/**
 * Dispatches a new connection into the front door's server, as its listening socket would; returns the client's end.
 */
function connect(front: FrontDoor, crowded: Crowded): ConnectionEnd {
  const client = new ConnectionEnd();
  const server = new ConnectionEnd();
  client.peer = server;
  server.peer = client;
  client.crowded = crowded;
  server.crowded = crowded;
  Object.assign(server, front);
  client.remoteAddress = front.localAddress;
  client.remotePort = front.localPort;
  // A TLS front door hands its decrypted connections to http on 'secureConnection'; 'connection' would start a
  // handshake.
  front.server.emit(front.encrypted ? 'secureConnection' : 'connection', server);
  return client;
}

/** A keep-alive agent whose connections lead into one server in this process. */
class InProcessAgent extends http.Agent {
  constructor(private readonly front: FrontDoor) {
    super({ keepAlive: true });
  }

  override createConnection(): Socket {
    return connect(this.front, this.crowded) as unknown as Socket;
  }

  /** more than one of this agent's connections carries a request (the agent's sockets in use, by host) */
  private readonly crowded = (): boolean => {
    let inUse = 0;
    for (const name in this.sockets) if ((inUse += this.sockets[name]?.length ?? 0) > 1) return true;
    return false;
  };
}

/** One in-process agent per front door, destroyed when its server closes or by `destroy()`. */
export class InProcessAgents {
  private readonly byServer = new Map<http.Server, { agent: InProcessAgent; onClose: () => void }>();

  agentFor(front: FrontDoor): http.Agent {
    const known = this.byServer.get(front.server);
    if (known) return known.agent;
    const agent = new InProcessAgent(front);
    const onClose = () => this.forget(front.server);
    this.byServer.set(front.server, { agent, onClose });
    front.server.once('close', onClose);
    return agent;
  }

  private forget(server: http.Server): void {
    const known = this.byServer.get(server);
    if (!known) return;
    this.byServer.delete(server);
    server.removeListener('close', known.onClose);
    known.agent.destroy();
  }

  destroy(): void {
    for (const server of [...this.byServer.keys()]) this.forget(server);
  }
}

function loopbackFor(localAddress: string): { remoteAddress: string; remoteFamily: string } {
  if (localAddress.startsWith('::ffff:')) return { remoteAddress: '::ffff:127.0.0.1', remoteFamily: 'IPv6' };
  if (localAddress.includes(':')) return { remoteAddress: '::1', remoteFamily: 'IPv6' };
  return { remoteAddress: '127.0.0.1', remoteFamily: 'IPv4' };
}

/**
 * The server that took `req` and its socket's fields, or undefined when it cannot be found (the socket transport serves
 * then).
 */
export function frontDoorOf(req: Request): FrontDoor | undefined {
  const socket = req.socket as Socket & { server?: unknown; encrypted?: boolean };
  const server = socket?.server;
  // Only Node's HTTP/1 servers: an HTTP/2 server (even with allowHTTP1) would take a new connection for an HTTP/2
  // session.
  if (!(server instanceof http.Server || server instanceof https.Server) || server.listenerCount('request') === 0)
    return undefined;
  const localAddress = socket.localAddress ?? '127.0.0.1';
  return {
    server: server as http.Server,
    localAddress,
    localPort: socket.localPort ?? 0,
    encrypted: socket.encrypted === true,
    ...loopbackFor(localAddress),
  };
}
