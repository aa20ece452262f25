import { messagesWire } from '../../../lib/wire/messages/messages';
import { loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };

describe("the Anthropic Messages wire's reader", () => {
  it('reads a turn: its text, its tool_use blocks as calls by their place, the input tokens with the cached ones', () => {
    const { reader } = messagesWire.open({ messages: [user] }, loopSetup([]));
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'repo_read', input: { path: 'a' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 1 },
    };
    expect(reader.json(message)).toEqual({
      text: 'Reading.',
      calls: [{ id: 'toolu_1', name: 'repo_read', arguments: '{"path":"a"}', index: 2 }],
      output: message,
      usage: { input: 111, output: 5, total: 116 },
      stop: 'tool_use',
      id: 'msg_1',
      model: 'claude',
      reply: message,
    });
    expect(() => reader.json({ type: 'error' })).toThrow('the reply is not a Message');
  });
});
