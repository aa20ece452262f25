import { elision } from '../../../lib/wire/gemini/elision';

describe('Gemini elision', () => {
  it("elides a user content's functionResponse output or error where it stands; anything else stays", () => {
    const long = 'x'.repeat(200);
    const content = {
      role: 'user',
      parts: [
        { functionResponse: { name: 'big', response: { output: long } } },
        { functionResponse: { name: 'bad', response: { error: long } } },
        { functionResponse: { name: 'small', response: { output: 'ok' } } },
      ],
    };
    expect(elision.elide(content, new Map())).toEqual({
      item: {
        role: 'user',
        parts: [
          { functionResponse: { name: 'big', response: { output: "[earlier result of 'big' elided: 200 bytes]" } } },
          { functionResponse: { name: 'bad', response: { error: "[earlier result of 'bad' elided: 200 bytes]" } } },
          { functionResponse: { name: 'small', response: { output: 'ok' } } },
        ],
      },
      results: 2,
    });
    expect(elision.elide({ role: 'model', parts: [{ text: long }] }, new Map())).toBeUndefined();
    expect(elision.elide({ role: 'user', parts: [{ text: long }] }, new Map())).toBeUndefined();
    expect(elision.latest([content, content])).toBe(1);
  });
});
