import { chatUsage, toolCallOf, wireCallOf } from '../../lib/loop/turn-result';

describe('chatUsage: token counts in the shape OpenAI shows them', () => {
  it('names input, output and total as prompt, completion and total tokens', () => {
    expect(chatUsage({ input: 1, output: 2, total: 3 })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });
});

describe('a call in chat completions’ shape (approvals seal that shape), and back', () => {
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
