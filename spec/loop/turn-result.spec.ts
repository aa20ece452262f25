import { chatUsage } from '../../lib/loop/turn-result';

describe('chatUsage: token counts in the shape OpenAI shows them', () => {
  it('names input, output and total as prompt, completion and total tokens', () => {
    expect(chatUsage({ input: 1, output: 2, total: 3 })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });
});
