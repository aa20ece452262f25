import { addMessagesUsage, totalTokens } from '../../../lib/wire/messages/usage';

describe('Messages usage over the turns', () => {
  it('sums usage over the turns, cache fields once a turn reported them', () => {
    const one = addMessagesUsage(undefined, { input_tokens: 10, output_tokens: 2 });
    expect(one).toEqual({ input_tokens: 10, output_tokens: 2 });
    const two = addMessagesUsage(one, {
      input_tokens: 30,
      output_tokens: 5,
      cache_read_input_tokens: 8,
      cache_creation_input_tokens: null,
      service_tier: 'standard',
    });
    expect(two).toEqual({ input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 8 });
    expect(addMessagesUsage(two, undefined)).toBe(two);
    expect(totalTokens(two)).toBe(55);
  });
});
