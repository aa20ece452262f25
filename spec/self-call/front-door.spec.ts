import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { Request } from 'express';
import { frontDoorOf } from '../../lib/self-call/front-door';

describe('frontDoorOf', () => {
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
