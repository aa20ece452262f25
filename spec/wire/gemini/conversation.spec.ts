import { succeededIn } from '../../../lib/trellis/hierarchy';
import { geminiWire } from '../../../lib/wire/gemini/gemini';
import { historyOf, withCalls } from '../../../lib/wire/gemini/conversation';
import type { Content } from '../../../lib/wire/gemini/types';

const user = { role: 'user', parts: [{ text: 'hi' }] };

describe('the Gemini conversation', () => {
  it('reads what a trusted history says ran well: a response with `error` failed', () => {
    const history = [
      user,
      { role: 'model', parts: [{ functionCall: { name: 'a' } }, { functionCall: { name: 'b' } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'a', response: { output: 'fine' } } },
          { functionResponse: { name: 'b', response: { error: 'tool error: no' } } },
        ],
      },
    ];
    expect([...succeededIn(historyOf(history))]).toEqual(['a']);
    expect([...geminiWire.succeededIn(history)]).toEqual(['a']);
  });

  it('keeps only the kept calls of a model content, every other part as it came', () => {
    const content: Content = {
      role: 'model',
      parts: [
        { text: 'Two.', thoughtSignature: 's0' },
        { functionCall: { name: 'a' }, thoughtSignature: 's1' },
        { functionCall: { name: 'b' } },
      ],
    };
    expect(withCalls(content, [{ id: 'x', name: 'a', arguments: '{}', index: 1 }])).toEqual({
      role: 'model',
      parts: [
        { text: 'Two.', thoughtSignature: 's0' },
        { functionCall: { name: 'a' }, thoughtSignature: 's1' },
      ],
    });
    expect(
      withCalls(content, [
        { id: 'x', name: 'a', arguments: '{}', index: 1 },
        { id: 'y', name: 'b', arguments: '{}', index: 2 },
      ]),
    ).toBe(content);
  });
});
