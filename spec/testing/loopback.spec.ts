import http from 'node:http';
import net from 'node:net';
import { onLoopback } from '../../lib/testing/loopback';

describe('a server on loopback', () => {
  it('listens on 127.0.0.1, on a free port unless one is given', async () => {
    const any = await onLoopback(http.createServer((_req, res) => res.end('ok')));
    const given = await onLoopback(
      http.createServer((_req, res) => res.end('ok')),
      any.port + 1,
    ).catch(() => undefined);
    try {
      expect(any.origin).toBe(`http://127.0.0.1:${any.port}`);
      expect(await (await fetch(any.origin)).text()).toBe('ok');
      if (given) expect(given.port).toBe(any.port + 1);
    } finally {
      await Promise.all([any.close(), given?.close()]);
    }
  });

  it('rejects with the reason when the port is taken, instead of an uncaught error', async () => {
    const taken = await onLoopback(http.createServer((_req, res) => res.end('ok')));
    try {
      await expect(onLoopback(http.createServer(), taken.port)).rejects.toThrow(
        `listen EADDRINUSE: address already in use 127.0.0.1:${taken.port}`,
      );
    } finally {
      await taken.close();
    }
  });

  it('closes with a keep-alive connection open: it drops the connection instead of waiting for it', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    server.keepAliveTimeout = 60_000;
    const { port, close } = await onLoopback(server);
    const socket = net.connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    const dropped = new Promise((resolve) => socket.once('close', resolve));
    await close();
    await dropped;
    expect(server.listening).toBe(false);
  });
});
