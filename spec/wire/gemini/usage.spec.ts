import { addUsageMetadata, tokenUsage } from '../../../lib/wire/gemini/usage';

describe('Gemini usageMetadata', () => {
  it('sums usageMetadata over turns, a field once a turn reported it', () => {
    const once = addUsageMetadata(undefined, { promptTokenCount: 3, totalTokenCount: 5 });
    expect(addUsageMetadata(once, { promptTokenCount: 4, thoughtsTokenCount: 2, totalTokenCount: 9 })).toEqual({
      promptTokenCount: 7,
      thoughtsTokenCount: 2,
      totalTokenCount: 14,
    });
    expect(addUsageMetadata(once, undefined)).toBe(once);
  });

  it('counts a turn as the API totals it, thoughts in the output', () => {
    expect(
      tokenUsage({ promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 18 }),
    ).toEqual({
      input: 10,
      output: 8,
      total: 18,
    });
    expect(tokenUsage({ promptTokenCount: 2 })).toEqual({ input: 2, output: 0, total: 2 });
    expect(tokenUsage(undefined)).toBeUndefined();
  });
});
