import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
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
