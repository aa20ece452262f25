import { Readable } from 'node:stream';
import { SseEvents, sseData, sseJson } from '../../../lib/wire/kit/sse';

async function events(parts: (string | Buffer)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(Readable.from(parts))) out.push(data);
  return out;
}

describe('sseData', () => {
  it('frames events across parts, whatever the line ends, splitting no character', async () => {
    const euro = Buffer.from('data: 1€\n\n');
    expect(await events(['data: a\r', '\n\r\ndata: b\rdata: c\r\r', euro.subarray(0, 9), euro.subarray(9)])).toEqual([
      'a',
      'b\nc',
      '1€',
    ]);
  });

  it('frames a 16 MiB line that arrives in 4 KiB parts (split once its end arrives, not on every part)', async () => {
    const line = `data: ${'x'.repeat(16 * 1024 * 1024)}`;
    const parts = Array.from({ length: Math.ceil(line.length / 4096) }, (_, i) => line.slice(i * 4096, (i + 1) * 4096));
    async function* socketLike() {
      // a part per event-loop turn, as a socket delivers them, so the test's timeout can fire if framing stalls
      for (const part of [...parts, '\r', '\n\n'])
        yield await new Promise<string>((resolve) => setImmediate(resolve, part));
    }
    const out: string[] = [];
    for await (const data of sseData(socketLike())) out.push(data);
    expect(out.map((data) => data.length)).toEqual([16 * 1024 * 1024]);
  });

  it('throws on a line, or an event of many data lines, longer than maxBytes; many events past it in all are no matter', async () => {
    const read = async (parts: string[], maxBytes: number) => {
      const out: string[] = [];
      for await (const data of sseData(Readable.from(parts), maxBytes)) out.push(data);
      return out;
    };
    await expect(
      read(
        Array.from({ length: 100 }, () => `data: ${'e'.repeat(100)}\n\n`),
        100,
      ),
    ).resolves.toHaveLength(100);
    await expect(read([`data: ${'e'.repeat(101)}\n\n`], 100)).rejects.toThrow('longer than maxReplyBytes = 100');
    await expect(read([`: ${'c'.repeat(60)}`, 'c'.repeat(60)], 100)).rejects.toThrow('longer than maxReplyBytes = 100');
    await expect(read([`data: ${'e'.repeat(60)}\ndata: ${'e'.repeat(60)}\n\n`], 100)).rejects.toThrow(
      'longer than maxReplyBytes = 100',
    );
  });

  it('skips comments and other fields, keeps data without a space, drops an event cut off at the end', async () => {
    expect(await events([': keep-alive\n\nevent: x\nid: 7\nretry: 5\ndata:tight\n\ndata\n\ndata: cut off'])).toEqual([
      'tight',
      '',
    ]);
  });
});

describe('SseEvents', () => {
  it("yields a part's events as it reads the part, and keeps a cut-off one for the next", () => {
    const events = new SseEvents();
    expect([...events.of('data: a\n\ndata: b\n\ndata: c')]).toEqual(['a', 'b']);
    expect([...events.of('d\ndata:e\n\n')]).toEqual(['cd\ne']);
  });
});

describe('sseJson', () => {
  it("reads an event's data as the JSON object it must be", () => {
    expect(sseJson('{"type":"ping"}')).toEqual({ type: 'ping' });
  });

  it.each(['not json', '[1,2]', 'null', '"text"'])('fails the turn on %s, showing what came', (data) => {
    expect(() => sseJson(data)).toThrow(`the model stream sent a malformed frame: ${data}`);
    expect(() => sseJson(data, 'event')).toThrow(`the model stream sent a malformed event: ${data}`);
  });

  it('shows at most 80 characters of what came', () => {
    expect(() => sseJson('x'.repeat(500))).toThrow(`the model stream sent a malformed frame: ${'x'.repeat(77)}...`);
  });
});
