import { deltaBytes, entryIndex, excerpt, MAX_STREAMED_ENTRIES, mergeDelta } from '../../lib/shared/deltas';
import type { Fields } from '../../lib/shared/fields';

describe('mergeDelta: a streamed delta added to what came before, by the delta convention', () => {
  it('joins strings, merges objects and lists by their index, sets naming fields once, and a null adds nothing', () => {
    const into: Fields = {};
    mergeDelta(into, {
      role: 'assistant',
      content: 'Hel',
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }],
    });
    mergeDelta(into, {
      content: 'lo',
      refusal: null,
      tool_calls: [
        { index: 0, id: 'call_1', function: { name: 'f', arguments: ':1}' } },
        { index: 1, id: 'call_2', function: { name: 'g', arguments: '{}' } },
      ],
    });
    mergeDelta(into, { content: null, extra: { a: 'x' } });
    mergeDelta(into, { extra: { a: 'y', b: 2 } });
    expect(into).toEqual({
      role: 'assistant',
      content: 'Hello',
      refusal: null,
      extra: { a: 'xy', b: 2 },
      tool_calls: [
        { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
        { index: 1, id: 'call_2', function: { name: 'g', arguments: '{}' } },
      ],
    });
  });

  it('appends list entries without an index, and replaces values of another kind', () => {
    const into: Fields = { parts: ['a'], n: 1 };
    mergeDelta(into, { parts: ['b'], n: 2 });
    expect(into).toEqual({ parts: ['a', 'b'], n: 2 });
  });

  it('never sets __proto__, and fails on more entries than any turn could take', () => {
    const into: Fields = {};
    mergeDelta(into, JSON.parse('{"__proto__":{"polluted":true},"ok":1}'));
    expect(into).toEqual({ ok: 1 });
    expect(({} as Fields).polluted).toBeUndefined();
    const many = Array.from({ length: MAX_STREAMED_ENTRIES + 1 }, () => 'x');
    expect(() => mergeDelta({}, { parts: many })).toThrow(
      `the model stream sent more than ${MAX_STREAMED_ENTRIES} 'parts' entries`,
    );
  });
});

describe('the helpers of streamed replies', () => {
  it('takes a small non-negative integer as an entry index, and names anything else', () => {
    expect(entryIndex(3, 'a tool call')).toBe(3);
    expect(() => entryIndex(MAX_STREAMED_ENTRIES, 'a tool call')).toThrow(
      'the model stream sent a tool call with an index out of range (0 to 255): 256',
    );
    expect(() => entryIndex('1', 'a tool call')).toThrow(
      'the model stream sent a tool call with an index out of range (0 to 255): "1"',
    );
  });

  it('cuts an excerpt at 80 characters', () => {
    expect(excerpt('x'.repeat(80))).toBe('x'.repeat(80));
    expect(excerpt('x'.repeat(81))).toBe(`${'x'.repeat(77)}...`);
  });
});

describe('deltaBytes: what a delta adds to the message it merges into', () => {
  it('counts strings as UTF-8 and other values as text, neither keys nor naming fields', () => {
    expect(
      deltaBytes({
        content: 'é!',
        index: 3,
        id: 'call_1',
        type: 'function',
        function: { name: 'open', arguments: '{}' },
        done: true,
        score: 0.5,
      }),
    ).toBe(3 + 2 + 4 + 3);
    expect(deltaBytes([{ text: 'ab' }, 'cd', null])).toBe(4);
  });
});
