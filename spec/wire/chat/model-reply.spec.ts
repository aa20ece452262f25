import { callsIn, contentText, toolCallOf, wellFormedReply, wireCallOf } from '../../../lib/wire/chat/model-reply';

const reply = (message: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'x',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message, finish_reason: 'stop', ...extra }],
});

describe('wellFormedReply: the model reply the loop relies on', () => {
  it.each([
    ['no choices', {}],
    ['choices: null', { choices: null }],
    ['choices: [null]', { choices: [null] }],
    ['message: a string', reply('hello')],
    ['a string', 'hello'],
  ])('refuses a reply with %s', (_name, raw) => {
    expect(() => wellFormedReply(raw)).toThrow('the reply is not a chat completion');
  });

  it('refuses content that is not text, and tool_calls that are not a list', () => {
    expect(() => wellFormedReply(reply({ role: 'assistant', content: 5 }))).toThrow(
      "the reply's content is not text: 5",
    );
    expect(() => wellFormedReply(reply({ role: 'assistant', content: null, tool_calls: 'lookup' }))).toThrow(
      `the reply's tool_calls is not a list: "lookup"`,
    );
  });

  it('takes text parts, a missing role and a strange finish_reason', () => {
    const { choices } = wellFormedReply(
      reply(
        {
          content: [
            { type: 'text', text: 'in ' },
            { type: 'text', text: 'parts' },
          ],
        },
        { finish_reason: 7 },
      ),
    );
    expect(choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'in parts' }, finish_reason: null }]);
  });

  it('leaves out calls that are not objects, and keeps only string ids and names', () => {
    const calls = [
      null,
      5,
      { id: 7, function: { name: 9, arguments: { q: 1 } } },
      { id: 'a', type: 'function', function: { name: 'lookup', arguments: '{}' } },
      { id: 'b' },
    ];
    const { message } = wellFormedReply(reply({ role: 'assistant', content: null, tool_calls: calls, refusal: null }))
      .choices[0];
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: '', type: 'function', function: { name: '', arguments: { q: 1 } } },
        { id: 'a', type: 'function', function: { name: 'lookup', arguments: '{}' } },
        { id: 'b', type: 'function', function: { name: '', arguments: undefined } },
      ],
    });
  });

  it('keeps a well-formed reply as it is', () => {
    const good = reply({ role: 'assistant', content: 'hi' });
    expect(wellFormedReply(good)).toEqual(good);
  });

  it('keeps every field of the message and of each call: reasoning, signatures, provider extras', () => {
    const message = {
      role: 'assistant',
      content: '',
      reasoning_content: 'The user wants the weather.',
      reasoning_details: [{ type: 'reasoning.encrypted', data: 'opaque', index: 0 }],
      tool_calls: [
        {
          id: 'a',
          type: 'function',
          function: { name: 'lookup', arguments: '', strict: true },
          extra_content: { google: { thought_signature: 'ts' } },
        },
      ],
    };
    expect(wellFormedReply(reply(message)).choices[0].message).toEqual(message);
  });

  it("keeps content of parts that are not all text as the model gave it, and reads only its text parts as the answer's text", () => {
    const content = [
      { type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] },
      { type: 'text', text: 'Paris.' },
    ];
    expect(wellFormedReply(reply({ role: 'assistant', content })).choices[0].message.content).toEqual(content);
    expect(contentText(content)).toBe('Paris.');
    expect(() => contentText(['Paris.'])).toThrow(`the reply's content is not text: ["Paris."]`);
  });

  it('reads the calls of a client history of any shape: a list, and only its objects', () => {
    const call = { id: 'b', type: 'function' as const, function: { name: 'x', arguments: '{}' } };
    expect(callsIn({ role: 'assistant', tool_calls: { id: 'a' } as never })).toEqual([]);
    expect(callsIn({ role: 'assistant', tool_calls: [null, 'x', call] as never })).toEqual([call]);
    expect(callsIn({ role: 'user' })).toEqual([]);
  });
});

describe('a call in chat completions’ shape, and back', () => {
  it('turns a wire call into a chat tool call and back, with its place among the calls', () => {
    const call = { id: 'call_1', name: 'repo_read', arguments: '{"path":"a"}', index: 2 };
    const chat = toolCallOf(call);
    expect(chat).toEqual({
      id: 'call_1',
      type: 'function',
      function: { name: 'repo_read', arguments: '{"path":"a"}' },
    });
    expect(wireCallOf(chat, 2)).toEqual(call);
    expect(wireCallOf(chat)).toEqual({ ...call, index: 0 });
  });
});
