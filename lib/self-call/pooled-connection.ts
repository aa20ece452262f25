import type http from 'node:http';
import type { Socket } from 'node:net';
import type { FrontDoor } from './front-door';

/**
 * How long a self-call's pooled connection (and the ready gateway's to its upstream) may stay idle: below the 5 s of
 * Node's default `keepAliveTimeout`, so the agent drops it before the server does, wherever the server is (`selfUrl`).
 */
export const IDLE_SOCKET_MS = 4000;

const withoutMappedPrefix = (address: string | undefined) =>
  address?.startsWith('::ffff:') ? address.slice(7) : address;

/**
 * Keeps idle connections to a front door in this process shorter-lived than its `keepAliveTimeout`. Node's own
 * `Keep-Alive: timeout=N` hint cannot be relied on: a proxy that serves the turns (the normal handler) copies the
 * upstream's hint onto the reply.
 */
export class IdleBounds {
  private readonly keepAliveMs = new Map<string, number>();

  constructor(agents: http.Agent[]) {
    // After the agent's own 'free' listener, which pools the socket and sets its idle timeout.
    for (const agent of agents) agent.on('free', (socket: Socket) => this.bound(socket));
  }

  know(front: FrontDoor): void {
    this.keepAliveMs.set(
      `${withoutMappedPrefix(front.localAddress)} ${front.localPort}`,
      front.server.keepAliveTimeout,
    );
  }

  private bound(socket: Socket): void {
    const keepAliveMs = this.keepAliveMs.get(`${withoutMappedPrefix(socket.remoteAddress)} ${socket.remotePort}`);
    if (socket.destroyed || !keepAliveMs) return;
    const idleMs = Math.max(1, Math.min(IDLE_SOCKET_MS, Math.floor(keepAliveMs * 0.8)));
    if (!socket.timeout || idleMs < socket.timeout) socket.setTimeout(idleMs);
  }
}

/**
 * Whether a request failed on a pooled connection before any byte of its reply: the front door closed the
 * connection as the request went out, so the request was never served and may be sent again.
 */
export function lostOnPooledConnection(error: unknown, signal: AbortSignal): boolean {
  const request = (error as { request?: http.ClientRequest & { res?: unknown } }).request;
  return !signal.aborted && request?.reusedSocket === true && !request.res;
}

/** Closes the agent's idle connections: their peer is closing them too, and the retry must not take another one. */
export function dropIdleConnections(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
