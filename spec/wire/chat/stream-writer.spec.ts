import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { StreamReply } from '../../../lib/wire/chat/stream-writer';

const DELTA = 'x'.repeat(64 * 1024);

/** A real response to a client that reads nothing until told to: the StreamReply writes to it until it is full. */
async function fullStream() {
  const controller = new AbortController();
  let reply!: StreamReply;
  let opened!: () => void;
  const handled = new Promise<void>((resolve) => (opened = resolve));
  const app = express().post('/', (_req, res) => {
    reply = new StreamReply(
      res,
      { id: 'chatcmpl-w', created: 1, model: 'm' },
      { keepAliveSec: 10, includeUsage: false, signal: controller.signal },
    );
    opened();
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const req = http.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST' });
  req.end();
  await handled;
  reply.text('first');
  const [client] = (await once(req, 'response')) as [http.IncomingMessage];
  client.pause();
  // Full once a wait for 'drain' outlasts what the kernel's socket buffers take in at once.
  let waiting: Promise<void> | void = undefined;
  for (let writes = 0; writes < 400; writes++) {
    const wait = reply.text(DELTA);
    if (!wait) continue;
    if (await Promise.race([wait.then(() => false), new Promise((resolve) => setTimeout(resolve, 200, true))])) {
      waiting = wait;
      break;
    }
  }
  const close = () => {
    req.destroy();
    server.closeAllConnections();
    server.close();
  };
  return { waiting, client, controller, close };
}

describe('StreamReply: a client that does not keep up', () => {
  it('asks the loop to wait once the socket is full, and lets it go on when the client drained it', async () => {
    const { waiting, client, close } = await fullStream();
    try {
      expect(waiting).toBeInstanceOf(Promise);
      client.resume();
      await waiting;
    } finally {
      close();
    }
  });

  it('stops waiting when the loop ends (deadline, cancel) or the client goes away', async () => {
    const aborted = await fullStream();
    expect(aborted.waiting).toBeInstanceOf(Promise);
    aborted.controller.abort();
    await aborted.waiting;
    aborted.close();
    const gone = await fullStream();
    expect(gone.waiting).toBeInstanceOf(Promise);
    gone.close();
    await gone.waiting;
  });
});
