import type http from 'node:http';
import { Duplex } from 'node:stream';
import type { FrontDoor } from './front-door';

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
export function connect(front: FrontDoor, crowded: Crowded): ConnectionEnd {
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
