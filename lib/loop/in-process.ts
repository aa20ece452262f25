import http from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
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

/**
 * One end of an in-process connection. What one end writes, the other reads, a tick later (as a socket would
 * deliver it: never inside the writer's own call). Ending one end ends the other's reading; destroying one end
 * destroys the other, so an aborted self-call closes the server's request and response.
 */
class ConnectionEnd extends Duplex {
  peer!: ConnectionEnd;
  /** the writer's callback, held while this end's reader is full */
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
    process.nextTick(deliver, this.peer, chunk, done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: Release): void {
    process.nextTick(deliver, this.peer, chunks.length === 1 ? chunks[0].chunk : Buffer.concat(chunks.map(({ chunk }) => chunk)), done);
  }

  override _final(done: Release): void {
    process.nextTick(deliver, this.peer, null, done);
  }

  override _read(): void {
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    process.nextTick(destroyPeer, this.peer);
    done(error);
  }

  hold(release: Release): void {
    this.held = release;
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

function deliver(reader: ConnectionEnd, chunk: Buffer | null, release: Release): void {
  if (reader.destroyed) return release();
  if (reader.push(chunk) || chunk === null) release();
  else reader.hold(release);
}

function destroyPeer(peer: ConnectionEnd): void {
  if (!peer.destroyed) peer.destroy();
}

/** Dispatches a new connection into the front door's server, as its listening socket would; returns the client's end. */
function connect(front: FrontDoor): ConnectionEnd {
  const client = new ConnectionEnd();
  const server = new ConnectionEnd();
  client.peer = server;
  server.peer = client;
  Object.assign(server, front);
  client.remoteAddress = front.localAddress;
  client.remotePort = front.localPort;
  // A TLS front door hands its decrypted connections to http on 'secureConnection'; 'connection' would start a handshake.
  front.server.emit(front.encrypted ? 'secureConnection' : 'connection', server);
  return client;
}

/** A keep-alive agent whose connections lead into one server in this process. */
class InProcessAgent extends http.Agent {
  constructor(private readonly front: FrontDoor) {
    super({ keepAlive: true });
  }

  override createConnection(): Socket {
    return connect(this.front) as unknown as Socket;
  }
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

/** The server that took `req` and its socket's fields, or undefined when it cannot be found (the socket transport serves then). */
export function frontDoorOf(req: Request): FrontDoor | undefined {
  const socket = req.socket as Socket & { server?: unknown; encrypted?: boolean };
  const server = socket?.server;
  if (!(server instanceof http.Server || server instanceof tls.Server) || server.listenerCount('request') === 0) return undefined;
  const localAddress = socket.localAddress ?? '127.0.0.1';
  return { server: server as http.Server, localAddress, localPort: socket.localPort ?? 0, encrypted: socket.encrypted === true, ...loopbackFor(localAddress) };
}
