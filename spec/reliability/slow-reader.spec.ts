import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChildGateway, MB, SCENARIO_TIMEOUT_MS, delay, figure, megabytes, sized } from './harness';

const PAUSE_MS = sized(2_000, 30_000);

/** A model's answer streamed in `frameChars` deltas, each chunk in `envelope` (OpenAI's own, or a bare one). */
interface Answer {
  bytes: number;
  frameChars: number;
  envelope: (delta: Record<string, unknown>, finish: string | null) => Record<string, unknown>;
}

const bare = (delta: Record<string, unknown>, finish: string | null) => ({
  id: 'chatcmpl-big',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'loop-slow',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
/** a chunk as OpenAI sends it: about 230 bytes around a 32-byte delta */
const openai = (delta: Record<string, unknown>, finish: string | null) => ({
  id: 'chatcmpl-CaFvEJ1uSqtUzVQ9gKlm4nYb8wXc2',
  object: 'chat.completion.chunk',
  created: 1764547200,
  model: 'gpt-4.1-2025-04-14',
  service_tier: 'default',
  system_fingerprint: 'fp_b3f1157249',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage: null,
  obfuscation: 'x9Qe2R',
});

interface StreamingModel {
  url: string;
  /** content bytes written to the gateway so far */
  sent: number;
  close(): Promise<void>;
}

/** An upstream that answers `stream: true` with `answer`, writing only as fast as it is read. */
async function startStreamingModel({ bytes, frameChars, envelope }: Answer): Promise<StreamingModel> {
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
      `data: ${JSON.stringify(envelope(delta, finish))}\n\n`;
    res.write(frame({ role: 'assistant', content: '' }));
    for (let at = 0; at < bytes && !res.destroyed; at += frameChars) {
      const content = String.fromCharCode(97 + ((at / frameChars) % 26)).repeat(Math.min(frameChars, bytes - at));
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

// The peak RSS it may cost: 320 Ki deltas held as V8 strings (the answer's text, the turn's message) weigh several
// times their bytes, with the garbage of parsing 75 MB of chunks, but not the stream's length.
const TINY_DELTAS_MB = sized(5, 10);
const ANSWERS: [string, Answer, number][] = [
  ['5 MB in 64 KiB deltas', { bytes: 5 * MB, frameChars: 64 * 1024, envelope: bare }, 64 * MB],
  // 160 Ki chunks and 37 MB of SSE at CI size (twice that at full size): past maxReplyBytes (the default, 32 MiB)
  // though the answer is well within it
  [
    `${TINY_DELTAS_MB} MB in 32-byte deltas, OpenAI's chunk envelope`,
    { bytes: TINY_DELTAS_MB * MB, frameChars: 32, envelope: openai },
    256 * MB,
  ],
];

describe.each(ANSWERS)('reliability: slow streaming reader, %s', (name, answer, maxRss) => {
  let model: StreamingModel;
  let gateway: ChildGateway;

  beforeAll(async () => {
    model = await startStreamingModel(answer);
    gateway = await ChildGateway.start({ upstream: model.url });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
  });

  it(
    `a client that reads nothing for ${PAUSE_MS / 1000} s while the loop streams ${name}: the gateway holds back, memory stays bounded, the answer arrives whole`,
    async () => {
      await gateway.gc();
      const before = await gateway.resetPeaks();
      const body = JSON.stringify({
        model: 'loop-slow',
        stream: true,
        messages: [{ role: 'user', content: 'a long answer, please' }],
      });
      const req = http.request(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
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
      const after = await gateway.stats();
      const events = Buffer.concat(parts).toString('utf8').split('\n\n').filter(Boolean);
      const content = events
        .filter((event) => event !== 'data: [DONE]')
        .map((event) => JSON.parse(event.slice('data: '.length)).choices[0]?.delta?.content ?? '')
        .join('');

      figure(
        `slow-reader: ${name} streamed to a client that read nothing for ${PAUSE_MS / 1000} s: ` +
          `upstream sent ${megabytes(sentWhilePaused).slice(1)} meanwhile (loopback socket buffers hold it), the gateway held at most ${Math.round(paused.peakUnsent / 1024)} KiB unsent in one response, ` +
          `peak rss ${megabytes(after.peakRss - before.rss)}; the client then read ${megabytes(content.length).slice(1)} and [DONE]`,
      );
      expect(content.length).toBe(answer.bytes);
      expect(events.at(-1)).toBe('data: [DONE]');
      expect(paused.peakUnsent).toBeLessThan(512 * 1024);
      expect(after.peakRss - before.rss).toBeLessThan(maxRss);
    },
    3 * SCENARIO_TIMEOUT_MS,
  );
});
