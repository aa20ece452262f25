import { Readable } from 'node:stream';
import { replyTooLong } from '../../lib/shared/held-bytes';
import { MAX_REPLY_BYTES } from '../../lib/options/agent-loop';
import { errorBody, errorMessage, ignoreText, streamedTurn, untilAborted } from '../../lib/loop/turn-stream';
import { streamedReply } from '../../lib/wire/chat/stream-reader';

const sse = (...events: unknown[]) =>
  events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('streamedTurn: one streamed turn read as it arrives, bounded', () => {
  it('reads a chat completion stream to [DONE], each text delta to the sink', async () => {
    const texts: string[] = [];
    const stream = Readable.from(
      sse(chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' }, 'stop'), '[DONE]'),
    );
    const completion = await streamedTurn(stream, (delta) => void texts.push(delta), MAX_REPLY_BYTES, streamedReply);
    expect(texts).toEqual(['Hel', 'lo']);
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Hello' },
      finish_reason: 'stop',
    });
  });

  it('fails once the message it holds passes maxBytes, naming the bound, and destroys the stream; the framing around it is not held', async () => {
    const parts = sse(...Array.from({ length: 10 }, () => chunk({ content: 'x'.repeat(100) })), '[DONE]');
    expect(parts.join('').length).toBeGreaterThan(2000);
    await expect(streamedTurn(Readable.from([parts.join('')]), ignoreText, 1000, streamedReply)).resolves.toBeDefined();
    const stream = Readable.from([parts.join('')]);
    await expect(streamedTurn(stream, ignoreText, 999, streamedReply)).rejects.toThrow(
      "the model's reply is longer than maxReplyBytes = 999",
    );
    expect(stream.destroyed).toBe(true);
    expect(replyTooLong(5).message).toBe("the model's reply is longer than maxReplyBytes = 5");
  });

  it("reads another wire's stream with that wire's reader", async () => {
    const read = async (parts: AsyncIterable<Buffer | string>) => {
      let all = '';
      for await (const part of parts) all += String(part);
      return all.length;
    };
    await expect(streamedTurn(Readable.from(['abc', 'de']), ignoreText, 10, read)).resolves.toBe(5);
  });
});

describe('the helpers of a streamed turn', () => {
  it('destroys the reply stream with the signal’s reason when it aborts, at once if it already did', async () => {
    const controller = new AbortController();
    const stream = untilAborted(new Readable({ read() {} }), controller.signal);
    const closed = new Promise<Error | undefined>((resolve) => stream.once('error', resolve));
    controller.abort(new Error('client went away'));
    await expect(closed).resolves.toEqual(new Error('client went away'));
    const early = untilAborted(new Readable({ read() {} }), AbortSignal.abort(new Error('late')));
    early.on('error', ignoreText);
    expect(early.destroyed).toBe(true);
  });

  it('reads the JSON error body of a failed streaming request, undefined when it is not JSON', async () => {
    await expect(errorBody(Readable.from(['{"error":', '{"message":"bad key"}}']))).resolves.toEqual({
      error: { message: 'bad key' },
    });
    await expect(errorBody(Readable.from(['<html>']))).resolves.toBeUndefined();
  });
});

describe('errorMessage: what a failed turn says', () => {
  it("names the message of an error body: OpenAI's, a list of them (Gemini), a string error (Ollama), a top-level message (Mistral)", () => {
    expect(
      errorMessage({
        object: 'error',
        message: 'Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.',
        type: 'invalid_request_error',
      }),
    ).toBe('Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.');
    expect(errorMessage({ error: { code: 42 }, message: 'not this one' })).toBeUndefined();
    expect(errorMessage({ error: { message: 'bad' } })).toBe('bad');
    expect(
      errorMessage([
        { error: { code: 400, message: 'Function call is missing a thought_signature', status: 'INVALID_ARGUMENT' } },
      ]),
    ).toBe('Function call is missing a thought_signature');
    expect(errorMessage({ error: 'model not found' })).toBe('model not found');
    expect(errorMessage([])).toBeUndefined();
    expect(errorMessage('oops')).toBeUndefined();
  });
});
