import { APPROVAL, INPUT, readRefusal, SIGN_IN } from '../../lib/person/question';

describe('the kinds of question to the person', () => {
  it('each says the stop its answer carries, and the sealed ones their tag and token kind', () => {
    expect([APPROVAL, INPUT, SIGN_IN].map(({ name, stop }) => [name, stop])).toEqual([
      ['approval', 'final'],
      ['input', 'input'],
      ['sign-in', 'authorization'],
    ]);
    expect([APPROVAL, INPUT].map(({ tag, token }) => [tag, token])).toEqual([
      ['.ap1.', 'approval'],
      ['.in1.', 'input'],
    ]);
  });

  it('refuses an answer whose id did not open: expired, or not asked here, in the words of its kind', () => {
    expect(readRefusal(APPROVAL, 'expired', 600)).toEqual({
      outcome: 'expired',
      refusal: { why: 'expired', ttlSec: 600 },
      reason: 'expired',
    });
    expect(readRefusal(APPROVAL, 'invalid', 600)).toEqual({
      outcome: 'refused',
      refusal: { why: 'not_asked' },
      reason: 'not an approval this gateway asked for',
    });
    expect(readRefusal(INPUT, 'too large', 60)).toEqual({
      outcome: 'refused',
      refusal: { why: 'not_asked' },
      reason: 'not a question this gateway asked',
    });
  });
});
