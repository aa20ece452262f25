import { assistantTurns, nextId, usageOf } from '../../lib/testing/wire';

describe('what the wires of the scripted model share', () => {
  it('counts the assistant messages of a conversation', () => {
    expect(
      assistantTurns([
        { role: 'user' },
        { role: 'assistant' },
        { role: 'tool' },
        { role: 'assistant' },
        { role: 'user' },
      ]),
    ).toBe(2);
    expect(assistantTurns([])).toBe(0);
  });

  it("reports a turn's usage as scripted, else 10 tokens in and 5 out", () => {
    expect(usageOf({ content: 'x', usage: { inputTokens: 0, outputTokens: 2 } })).toEqual({
      inputTokens: 0,
      outputTokens: 2,
    });
    expect(usageOf({ content: 'x' })).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it('numbers ids without repeating one', () => {
    const first = nextId();
    expect([nextId(), nextId()]).toEqual([first + 1, first + 2]);
  });
});
