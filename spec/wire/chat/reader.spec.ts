import { Readable } from 'node:stream';
import { chatReader, chatTurn } from '../../../lib/wire/chat/reader';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'repo_read', arguments: '{"p":1}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
};

describe('chatReader: a turn’s chat completion, as the loop reads it', () => {
  it('reads the text, the calls by their place, the usage normalised, the message and reply whole', () => {
    expect(chatReader.json(completion)).toEqual({
      text: 'Reading.',
      calls: [{ id: 'call_1', name: 'repo_read', arguments: '{"p":1}', index: 0 }],
      output: completion.choices[0].message,
      usage: { input: 5, output: 2, total: 7 },
      stop: 'tool_calls',
      id: 'chatcmpl-1',
      model: 'm',
      reply: completion,
    });
  });

  it('fails on a reply that is no chat completion (the turn then fails like a failed model call)', () => {
    expect(() => chatReader.json({ error: { message: 'nope' } })).toThrow();
    expect(() => chatReader.json(undefined)).toThrow();
  });

  it('reads a stream to [DONE], passing on its text as it arrives', async () => {
    const frame = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-2', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const texts: string[] = [];
    const turn = await chatReader.stream(
      Readable.from([frame({ role: 'assistant', content: 'He' }), frame({ content: 'y' }, 'stop'), 'data: [DONE]\n\n']),
      (t) => void texts.push(t),
      1 << 20,
    );
    expect(texts).toEqual(['He', 'y']);
    expect([turn.text, turn.calls, turn.stop, turn.id]).toEqual(['Hey', [], 'stop', 'chatcmpl-2']);
    expect(chatTurn({ ...completion, usage: undefined } as never).usage).toBeUndefined();
  });
});
