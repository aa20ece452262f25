import { wellFormedReply } from '../../../lib/wire/messages/model-reply';

describe('the model’s Messages reply, as the loop relies on it', () => {
  it.each([
    [null, 'the reply is not a Message'],
    [{ type: 'message', content: 'text' }, 'the reply is not a Message'],
    [{ type: 'message', content: ['text'] }, "the reply's a content block is not a typed object"],
    [
      { type: 'message', content: [{ type: 'tool_use', name: 'f', input: {} }] },
      "the reply's a tool_use block has no string id or name",
    ],
  ])('refuses a reply the loop cannot act on: %j', (reply, error) => {
    expect(() => wellFormedReply(reply)).toThrow(error);
  });

  it('keeps every field of a well-formed reply', () => {
    const reply = {
      type: 'message',
      id: 'm',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'server_tool_use', id: 'srv', name: 'web_search', input: {} },
      ],
      stop_details: null,
    };
    expect(wellFormedReply(reply)).toEqual(reply);
  });
});
