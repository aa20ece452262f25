import { isCall, type Part } from '../../../lib/wire/gemini/types';

describe('Gemini shapes', () => {
  it('tells a functionCall part from the others', () => {
    expect(
      ([{ functionCall: { name: 'f' } }, { functionCall: null }, { text: 'x' }] as Part[]).map((part) => isCall(part)),
    ).toEqual([true, false, false]);
  });
});
