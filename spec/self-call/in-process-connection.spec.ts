import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { Readable } from 'node:stream';
import { inProcessDoors } from '../helpers/in-process-door';
import { until } from '../helpers/store-contract';
import { abortAtFirstPart } from '../helpers/streams';

describe('the in-process connection', () => {
  const { client, frontDoor } = inProcessDoors();

  it('streams a reply part by part, a character split across parts included', async () => {
    const reply = Buffer.from('data: Grüße\n\n');
    let rest!: () => void;
    const door = await frontDoor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(reply.subarray(0, 9)); // cuts "ü" in two
      rest = () => res.end(reply.subarray(9));
    });
    const response = await client.post<Readable>(door.url, '{}', { httpAgent: door.agent, responseType: 'stream' });
    const parts: Buffer[] = [];
    // the rest is written only once the first part was read: two parts on a loaded machine too
    for await (const part of response.data) if (parts.push(part as Buffer) === 1) rest();
    await door.close();
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts).toString('utf8')).toBe('data: Grüße\n\n');
  });

  it("hands a lone call's reply over before the event loop's check phase, and waits for it while other calls are in flight", async () => {
    const order: string[] = [];
    let held: http.ServerResponse | undefined;
    const door = await frontDoor((req, res) => {
      if (req.url?.endsWith('?hold')) return void (held = res);
      setImmediate(() => order.push('check phase'));
      res.end('ok');
    });
    const call = (query = '') =>
      new Promise<void>((resolve, reject) => {
        const sent = http.request(`${door.url}${query}`, { agent: door.agent, method: 'POST' }, (res) => {
          order.push('reply');
          res.resume().once('end', resolve);
        });
        sent.once('error', reject).end();
      });
    await call();
    await until(() => order.length === 2);
    expect(order.splice(0)).toEqual(['reply', 'check phase']);
    const holding = call('?hold');
    await until(() => held !== undefined);
    await call();
    await until(() => order.length === 2);
    expect(order.splice(0)).toEqual(['check phase', 'reply']);
    held?.end();
    await holding;
    await door.close();
  });

  it('carries a body larger than a reader takes at once, both ways', async () => {
    const large = 'x'.repeat(3 * 1024 * 1024);
    const door = await frontDoor((req, res) => {
      let length = 0;
      req.on('data', (part: Buffer) => (length += part.length));
      req.on('end', () => res.end(`${length}:${large}`));
    });
    const response = await client.post<string>(door.url, large, { httpAgent: door.agent });
    await door.close();
    expect(response.data).toBe(`${large.length}:${large}`);
  });

  it('aborts mid-stream: the reading stops, the server sees its request close, the signal keeps no listener', async () => {
    let serverSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const door = await frontDoor((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n'); // and never ends
      req.once('close', serverSawClose);
    });
    const controller = new AbortController();
    const response = await client.post<Readable>(door.url, '{}', {
      httpAgent: door.agent,
      responseType: 'stream',
      signal: controller.signal,
    });
    const { parts, error } = await abortAtFirstPart(response.data, controller);
    expect(error?.message).toBe('aborted');
    await closed;
    await door.close();
    expect(parts).toEqual(['data: one\n\n']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
