import { Readable } from 'node:stream';
import { streamedCompletion } from '../../lib/loop/chunks';
import { sseData } from '../../lib/loop/sse';

async function events(parts: (string | Buffer)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(Readable.from(parts))) out.push(data);
  return out;
}

const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) => frame({ id: 'x', created: 1, model: 'm', choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe('sseData', () => {
  it('frames events across parts, whatever the line ends, splitting no character', async () => {
    const euro = Buffer.from('data: 1€\n\n');
    expect(await events(['data: a\r', '\n\r\ndata: b\rdata: c\r\r', euro.subarray(0, 9), euro.subarray(9)])).toEqual(['a', 'b\nc', '1€']);
  });

  it('frames a 16 MiB line that arrives in 4 KiB parts (split once its end arrives, not on every part)', async () => {
    const line = `data: ${'x'.repeat(16 * 1024 * 1024)}`;
    const parts = Array.from({ length: Math.ceil(line.length / 4096) }, (_, i) => line.slice(i * 4096, (i + 1) * 4096));
    async function* socketLike() {
      // a part per event-loop turn, as a socket delivers them, so the test's timeout can fire if framing stalls
      for (const part of [...parts, '\r', '\n\n']) yield await new Promise<string>((resolve) => setImmediate(resolve, part));
    }
    const out: string[] = [];
    for await (const data of sseData(socketLike())) out.push(data);
    expect(out.map((data) => data.length)).toEqual([16 * 1024 * 1024]);
  });

  it('skips comments and other fields, keeps data without a space, drops an event cut off at the end', async () => {
    expect(await events([': keep-alive\n\nevent: x\nid: 7\nretry: 5\ndata:tight\n\ndata\n\ndata: cut off'])).toEqual(['tight', '']);
  });
});

describe('streamedCompletion', () => {
  it('puts text and interleaved tool-call deltas back together by index, with usage and finish reason', async () => {
    const texts: string[] = [];
    const stream = Readable.from([
      delta({ role: 'assistant', content: '' }),
      delta({ content: 'Let me ' }),
      delta({ content: 'look.' }),
      delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'open', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'read', arguments: '{"id"' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'open', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: ':"n1"}' } }] }),
      delta({}, 'tool_calls'),
      frame({ id: 'x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
      'data: [DONE]\n\n',
    ]);
    const completion = await streamedCompletion(stream, (text) => void texts.push(text));
    expect(texts).toEqual(['Let me ', 'look.']);
    expect(completion).toEqual({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me look.',
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'open', arguments: '{}' } },
              { id: 'b', type: 'function', function: { name: 'read', arguments: '{"id":"n1"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it.each([
    ['no [DONE]', [delta({ content: 'hi' })], 'the model stream ended without [DONE]'],
    ['no reply at all', ['data: [DONE]\n\n'], 'the model stream ended without a reply'],
    ['a frame that is not JSON', ['data: {"id": \n\n'], 'the model stream sent a malformed frame: {"id":'],
    ['a frame that is not an object', ['data: [1]\n\n'], 'the model stream sent a malformed frame: [1]'],
    ['an error frame', [frame({ error: { message: 'overloaded' } })], 'the model stream sent an error: overloaded'],
    ['an error frame without a message', [frame({ error: { code: 42 } })], 'the model stream sent an error: {"code":42}'],
  ])('fails on %s', async (_name, parts, message) => {
    await expect(streamedCompletion(Readable.from(parts), () => undefined)).rejects.toThrow(message);
  });

  it('fails with the reason of a stream that breaks off', async () => {
    const stream = new Readable({ read() {} });
    stream.push(delta({ content: 'hi' }));
    setImmediate(() => stream.destroy(new Error('socket hang up')));
    await expect(streamedCompletion(stream, () => undefined)).rejects.toThrow('socket hang up');
  });
});
