import { Readable } from 'node:stream';
import { HeldBytes } from '../../../lib/shared/held-bytes';
import { streamedReply } from '../../../lib/wire/gemini/stream-reader';

let counted = 0;
/** One chunk as the API streams it: the usage so far repeated on every chunk. */
const chunk = (parts: unknown[], fields: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...fields }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: ++counted, totalTokenCount: 5 + counted },
    modelVersion: 'g',
  })}\r\n\r\n`;

async function read(events: string[], held = new HeldBytes(1e6)) {
  const texts: string[] = [];
  const reply = await streamedReply(Readable.from(events), (text) => void texts.push(text), held);
  return { reply, texts };
}

describe('a streamed Gemini reply, put back together', () => {
  it('joins plain text pieces, keeps a signed part exactly where it came, and takes the last usage, never a sum', async () => {
    const { reply, texts } = await read([
      chunk([{ text: 'Thinking', thought: true }]),
      chunk([{ text: 'Hel' }]),
      chunk([{ text: 'lo' }]),
      chunk([{ text: '.', thoughtSignature: 'sig-1' }]),
      chunk(
        [{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig-2' }, { functionCall: { name: 'g' } }],
        {
          finishReason: 'STOP',
        },
      ),
    ]);
    expect(texts).toEqual(['Hel', 'lo', '.']);
    expect(reply.candidates?.[0]).toEqual({
      content: {
        role: 'model',
        parts: [
          { text: 'Thinking', thought: true },
          { text: 'Hello' },
          { text: '.', thoughtSignature: 'sig-1' },
          { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig-2' },
          { functionCall: { name: 'g' } },
        ],
      },
      index: 0,
      finishReason: 'STOP',
    });
    expect(reply.modelVersion).toBe('g');
    expect(reply.usageMetadata).toEqual({
      promptTokenCount: 5,
      candidatesTokenCount: counted,
      totalTokenCount: 5 + counted,
    });
  });

  it.each([
    [[chunk([{ text: 'cut' }])], 'the model stream ended without a finishReason'],
    [
      [
        chunk([{ text: 'a' }]),
        `data: ${JSON.stringify({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } })}\n\n`,
      ],
      'the model stream sent an error: UNAVAILABLE: overloaded',
    ],
    [['data: {not json\n\n'], 'the model stream sent a malformed frame: {not json'],
    [
      [chunk([{ functionCall: { name: 'f', args: '{"a":1}' } }], { finishReason: 'STOP' })],
      `the reply's the args of functionCall 'f' are not an object: "{\\"a\\":1}"`,
    ],
    [
      [chunk([{ functionCall: { args: {} } }], { finishReason: 'STOP' })],
      expect.stringContaining('a functionCall has no name'),
    ],
  ])('fails a broken stream: %#', async (events, message) => {
    await expect(read(events)).rejects.toThrow(
      typeof message === 'string' ? message : expect.objectContaining({ message }),
    );
  });

  it('fails a reply longer than maxReplyBytes', async () => {
    await expect(
      read([chunk([{ text: 'x'.repeat(100) }], { finishReason: 'STOP' })], new HeldBytes(50)),
    ).rejects.toThrow("the model's reply is longer than maxReplyBytes = 50");
  });
});
