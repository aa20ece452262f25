import { Readable } from 'node:stream';
import { responsesReader } from '../../../lib/wire/responses/reader';

const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'repo_read', arguments: '{}' };
const message = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] };
const sse = (...events: object[]) =>
  Readable.from(
    events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`),
  );
const read = (stream: Readable, texts: string[] = []) =>
  responsesReader.stream(stream, (delta) => void texts.push(delta), 1 << 20);

describe('responsesReader.stream: a streamed Response, read to its end event', () => {
  it('reads a stream to response.completed, its text as it arrives, the items the stream finished when the end event lists none', async () => {
    const texts: string[] = [];
    const turn = await read(
      sse(
        { type: 'response.created', response: { id: 'resp_2' } },
        { type: 'response.output_text.delta', delta: 'Hi' },
        { type: 'response.output_text.delta', delta: '.' },
        { type: 'response.output_item.done', output_index: 1, item: call },
        { type: 'response.output_item.done', output_index: 0, item: message },
        { type: 'response.completed', response: { id: 'resp_2', status: 'completed', model: 'm', output: [] } },
      ),
      texts,
    );
    expect(texts).toEqual(['Hi', '.']);
    expect([turn.text, turn.output, turn.id, turn.stop]).toEqual(['Hi.', [message, call], 'resp_2', 'completed']);
  });

  it.each([
    [[{ type: 'error', message: 'overloaded' }], 'the model stream sent an error: overloaded'],
    [
      [{ type: 'response.output_item.done', output_index: 5000, item: call }],
      'the model stream sent an output_index out of bounds: 5000',
    ],
    [[{ type: 'response.output_text.delta', delta: 'x' }], 'the model stream ended without response.completed'],
  ])('fails a stream that says %j', async (events, error) => {
    await expect(read(sse(...events))).rejects.toThrow(error);
  });

  it('names a malformed frame', async () => {
    await expect(read(Readable.from(['data: {not json\n\n']))).rejects.toThrow(
      'the model stream sent a malformed frame: {not json',
    );
  });

  it('holds at most maxBytes of the text and finished items, however long the stream runs', async () => {
    const delta = (text: string, i: number) => ({
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: text,
      logprobs: [],
      obfuscation: 'x9Qe2R',
      sequence_number: i,
    });
    const done = {
      type: 'response.completed',
      response: { id: 'resp_1', status: 'completed', model: 'm', output: [message] },
    };
    const stream = (extra: string) =>
      sse(...Array.from({ length: 1000 }, (_, i) => delta('t'.repeat(32), i)), delta(extra, 1000), done);
    await expect(responsesReader.stream(stream(''), () => undefined, 32 * 1000)).resolves.toMatchObject({
      id: 'resp_1',
    });
    await expect(responsesReader.stream(stream('!'), () => undefined, 32 * 1000)).rejects.toThrow(
      'longer than maxReplyBytes = 32000',
    );
    const item = {
      type: 'response.output_item.done',
      output_index: 0,
      item: { ...message, content: [{ type: 'output_text', text: 'x'.repeat(400) }] },
    };
    await expect(responsesReader.stream(sse(item, item, item, done), () => undefined, 1000)).rejects.toThrow(
      'longer than maxReplyBytes = 1000',
    );
  });
});
