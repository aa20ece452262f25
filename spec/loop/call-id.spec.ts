import { TakenIds, givenId } from '../../lib/loop/call-id';

describe('givenId: the id of a call that came without one, in the form of the model’s own', () => {
  it('is letters and digits of the same length as a model id of that form (Mistral takes only 9), the same for the same seed', () => {
    const id = givenId('D681PevKs', 'call_loop_1_0', new Set());
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(givenId('D681PevKs', 'call_loop_1_0', new Set())).toBe(id);
    expect(givenId('D681PevKs', 'call_loop_1_1', new Set())).not.toBe(id);
  });

  it('is never one the conversation already used', () => {
    const first = givenId('abcdef123', 'call_x', new Set());
    const second = givenId('abcdef123', 'call_x', new Set([first]));
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  it.each([[undefined], ['c1'], ['call_abc123'], ['toolu_01ABC']])(
    'takes the fallback when the model id %p gives no form to copy',
    (like) => {
      expect(givenId(like, 'call_loop_2_0', new Set())).toBe('call_loop_2_0');
    },
  );
});

describe('TakenIds: the call ids a conversation holds, read as it grows', () => {
  const idsIn = (item: { calls: string[] }) => item.calls;

  it('holds the ids of items appended since the last turn, each item read once, in the conversation’s order', () => {
    const items = [{ calls: ['a', 'b'] }, { calls: [] }];
    const read: unknown[] = [];
    const taken = new TakenIds((item: { calls: string[] }) => (read.push(item), idsIn(item)));
    expect([...taken.of(items)]).toEqual(['a', 'b']);
    items.push({ calls: ['c'] }, { calls: ['a', 'd'] });
    expect([...taken.of(items)]).toEqual(['a', 'b', 'c', 'd']);
    expect(taken.of(items).has('d')).toBe(true);
    expect(read).toEqual(items);
  });

  it('keeps the ids the loop gave a turn’s calls before they joined the conversation', () => {
    const items = [{ calls: ['a'] }];
    const taken = new TakenIds(idsIn);
    taken.of(items).add('own');
    items.push({ calls: ['own'] });
    expect([...taken.of(items)]).toEqual(['a', 'own']);
  });
});
