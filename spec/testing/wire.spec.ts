import { assistantTurns, nextId } from '../../lib/testing/wire';

describe('what the wires of the scripted model share', () => {
  it('counts the assistant messages of a conversation', () => {
    expect(assistantTurns([{ role: 'user' }, { role: 'assistant' }, { role: 'tool' }, { role: 'assistant' }, { role: 'user' }])).toBe(2);
    expect(assistantTurns([])).toBe(0);
  });

  it('numbers ids without repeating one', () => {
    const first = nextId();
    expect([nextId(), nextId()]).toEqual([first + 1, first + 2]);
  });
});
