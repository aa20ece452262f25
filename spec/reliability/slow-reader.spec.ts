import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChildGateway, MB, SCENARIO_TIMEOUT_MS, delay, figure, megabytes, sized } from './harness';

const ANSWER_BYTES = 5 * MB;
const FRAME_CHARS = 64 * 1024;
const PAUSE_MS = sized(5_000, 30_000);

interface StreamingModel {
  url: string;
  /** content bytes written to the gateway so far */
  sent: number;
  close(): Promise<void>;
}

/** An upstream that answers `stream: true` with a 5 MB text in 64 KiB deltas, writing only as fast as it is read. */
async function startStreamingModel(): Promise<StreamingModel> {
  const model = { sent: 0 } as StreamingModel;
  const drained = (res: http.ServerResponse) =>
    new Promise<void>((resolve) => {
      const done = () => (res.off('drain', done), res.off('close', done), resolve());
      res.once('drain', done).once('close', done);
    });
  const server = http.createServer(async (req, res) => {
    for await (const _part of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-big', object: 'chat.completion.chunk', created: 1, model: 'loop-slow', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(frame({ role: 'assistant', content: '' }));
    for (let at = 0; at < ANSWER_BYTES && !res.destroyed; at += FRAME_CHARS) {
      const content = String.fromCharCode(97 + ((at / FRAME_CHARS) % 26)).repeat(Math.min(FRAME_CHARS, ANSWER_BYTES - at));
      model.sent += content.length;
      if (!res.write(frame({ content }))) await drained(res);
    }
    res.end(`${frame({}, 'stop')}data: [DONE]\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return model;
}

describe('reliability: slow streaming reader', () => {
  let model: StreamingModel;
  let gateway: ChildGateway;

  beforeAll(async () => {
    model = await startStreamingModel();
    gateway = await ChildGateway.start({ upstream: model.url });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  it(`a client that reads nothing for ${PAUSE_MS / 1000} s while the loop streams 5 MB: the gateway holds back, memory stays bounded, the answer arrives whole`, async () => {
    await gateway.gc();
    const before = await gateway.resetPeaks();
    const body = JSON.stringify({ model: 'loop-slow', stream: true, messages: [{ role: 'user', content: 'a long answer, please' }] });
    const req = http.request(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.end(body);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    res.pause();
    await delay(PAUSE_MS);
    const paused = await gateway.stats();
    const sentWhilePaused = model.sent;

    const parts: Buffer[] = [];
    res.on('data', (part: Buffer) => parts.push(part));
    res.resume();
    await once(res, 'end');
    const events = Buffer.concat(parts).toString('utf8').split('\n\n').filter(Boolean);
    const content = events
      .filter((event) => event !== 'data: [DONE]')
      .map((event) => JSON.parse(event.slice('data: '.length)).choices[0]?.delta?.content ?? '')
      .join('');

    figure(
      `slow-reader: ${megabytes(ANSWER_BYTES).slice(1)} streamed to a client that read nothing for ${PAUSE_MS / 1000} s: ` +
        `upstream sent ${megabytes(sentWhilePaused).slice(1)} meanwhile (loopback socket buffers hold it), the gateway held at most ${Math.round(paused.peakUnsent / 1024)} KiB unsent in one response, ` +
        `peak rss ${megabytes(paused.peakRss - before.rss)}; the client then read ${megabytes(content.length).slice(1)} and [DONE]`,
    );
    expect(content.length).toBe(ANSWER_BYTES);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(paused.peakUnsent).toBeLessThan(512 * 1024);
    expect(paused.peakRss - before.rss).toBeLessThan(64 * MB);
  }, SCENARIO_TIMEOUT_MS);
});
