import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { abortAtFirstPart } from '../helpers/streams';
import axios, { AxiosError } from 'axios';
import { selfCallAdapter } from '../../lib/self-call/axios-adapter';

const tls = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'tls', name));

interface Seen {
  method?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback server (plain or TLS) that records each request and answers with `reply`. */
async function frontDoor(reply: (res: http.ServerResponse) => void, secure = false, host = '127.0.0.1') {
  const seen: Seen[] = [];
  const listener: http.RequestListener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (body += part));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      reply(res);
    });
  };
  const server = secure
    ? https.createServer({ key: tls('key.pem'), cert: tls('cert.pem') }, listener)
    : http.createServer(listener);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const origin = `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return { seen, origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('selfCallAdapter', () => {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true, ca: tls('cert.pem') }),
  };
  const client = axios.create({
    adapter: selfCallAdapter(agents),
    validateStatus: null,
    transformRequest: [],
    transformResponse: [],
  });
  afterAll(() => {
    agents.http.destroy();
    agents.https.destroy();
  });

  it('sends the body with its byte length and reads the reply as text, a character split across chunks included', async () => {
    const door = await frontDoor((res) => {
      const reply = Buffer.from('{"text":"Grüße ✓"}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(reply.subarray(0, 13)); // cuts "ü" in two
      res.end(reply.subarray(13));
    });
    const body = JSON.stringify({ greeting: 'héllo ✓' });
    const response = await client.post(`${door.origin}/v1/chat/completions`, body, {
      headers: { 'content-type': 'application/json', 'x-extra': 'yes' },
    });
    await door.close();
    expect(response.status).toBe(200);
    expect(response.data).toBe('{"text":"Grüße ✓"}');
    expect(response.headers['content-type']).toBe('application/json');
    expect(door.seen).toEqual([
      {
        method: 'POST',
        body,
        headers: expect.objectContaining({ 'content-length': String(Buffer.byteLength(body)), 'x-extra': 'yes' }),
      },
    ]);
  });

  it('resolves every status, with the error body as text', async () => {
    const door = await frontDoor((res) => res.writeHead(503, 'Busy').end('{"error":{"message":"overloaded"}}'));
    const response = await client.post(door.origin, '{}');
    await door.close();
    expect([response.status, response.statusText, response.data]).toEqual([
      503,
      'Busy',
      '{"error":{"message":"overloaded"}}',
    ]);
  });

  it("hands the reply over as the stream itself for responseType 'stream'", async () => {
    const door = await frontDoor((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setTimeout(() => res.end('data: [DONE]\n\n'), 20);
    });
    const response = await client.post<Readable>(door.origin, '{}', { responseType: 'stream' });
    let text = '';
    for await (const part of response.data) text += String(part);
    await door.close();
    expect(text).toBe('data: one\n\ndata: [DONE]\n\n');
  });

  it('takes an https front door on the https agent', async () => {
    const door = await frontDoor((res) => res.end('secure'), true);
    const response = await client.post(`${door.origin}/v1/chat/completions`, '{}');
    await door.close();
    expect(response.data).toBe('secure');
    expect(door.seen).toHaveLength(1);
  });

  it('rejects with an AxiosError that names the transport failure', async () => {
    const door = await frontDoor((res) => res.end());
    await door.close();
    const failure = await client.post(door.origin, '{}').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AxiosError);
    expect(failure).toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('stops a request when its signal aborts: the front door sees it closed', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const door = await frontDoor((res) => res.once('close', closed)); // never answers
    const controller = new AbortController();
    const pending = client.post(door.origin, '{}', { signal: controller.signal }).catch((error: unknown) => error);
    setTimeout(() => controller.abort(new Error('budget spent')), 20);
    const failure = await pending;
    await serverSawClose;
    await door.close();
    expect(axios.isCancel(failure)).toBe(true);
  });
  it('reaches an IPv6 front door', async () => {
    const door = await frontDoor((res) => res.end('over v6'), false, '::1').catch(
      (error: NodeJS.ErrnoException) => error,
    );
    // the one reason to leave it untested: a machine without an IPv6 loopback
    if (door instanceof Error) return expect(['EADDRNOTAVAIL', 'EAFNOSUPPORT']).toContain(door.code);
    const response = await client.post(`${door.origin}/v1/chat/completions?x=1`, '{}');
    await door.close();
    expect(response.data).toBe('over v6');
  });

  it('cuts a streamed reply when the signal aborts mid-stream', async () => {
    const door = await frontDoor((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n'); // and never ends
    });
    const controller = new AbortController();
    const response = await client.post<Readable>(door.origin, '{}', {
      responseType: 'stream',
      signal: controller.signal,
    });
    const { parts, error } = await abortAtFirstPart(response.data, controller);
    expect(error?.message).toBe('aborted');
    await door.close();
    expect(parts).toEqual(['data: one\n\n']);
  });

  it("leaves no listener on a loop's signal once its requests are done", async () => {
    const door = await frontDoor((res) => res.end('ok'));
    const controller = new AbortController();
    for (let turn = 0; turn < 3; turn++) await client.post(door.origin, '{}', { signal: controller.signal });
    await door.close();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
