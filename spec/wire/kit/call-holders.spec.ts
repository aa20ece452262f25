import { CallHolders } from '../../../lib/wire/kit/call-holders';

/** A list in no wire's shape: the model's calls and the answers to them. */
type Item = { call: string } | { answer: string; text: string };

const callIds = (item: Item) => ('call' in item ? [item.call] : []);
const answered = (item: Item) => ('answer' in item ? [item.answer] : []);

describe('CallHolders', () => {
  it('finds the latest holder of a call until an answer follows it, reading each item once', () => {
    const calls = jest.fn(callIds);
    const holders = new CallHolders<Item>(calls, answered);
    const out: Item[] = [{ call: 'a' }, { call: 'b' }];
    expect(holders.holderOf(out, 'a')).toBe(0);
    out.push({ answer: 'a', text: 'done' }, { call: 'b' });
    expect(holders.holderOf(out, 'a')).toBe(-1);
    expect(holders.holderOf(out, 'b')).toBe(3);
    expect(holders.holderOf(out, 'c')).toBe(-1);
    expect(calls).toHaveBeenCalledTimes(out.length);
  });
});
