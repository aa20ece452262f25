import { MASKED, maskedArguments } from '../../lib/judge/masked-arguments';

describe("maskedArguments: a judge's text with the call's argument values masked", () => {
  it('masks every string of 4 characters or more, at any depth, as written and as JSON writes it', () => {
    const args = { path: '/srv/docs', deep: [{ note: 'say "hi"' }, 42, true], id: 'ab' };
    const text = `deletes /srv/docs and writes {"note":"say \\"hi\\""} for ab, 42 times`;
    expect(maskedArguments(text, args)).toBe(`deletes ${MASKED} and writes {"note":"${MASKED}"} for ab, 42 times`);
  });

  it('masks the longest value first, and values of every set given (the call, its rewrite)', () => {
    expect(maskedArguments('rm -rf /srv/docs, not /srv', { cmd: 'rm -rf /srv/docs' }, { dir: '/srv' })).toBe(
      `${MASKED}, not ${MASKED}`,
    );
  });

  it('leaves a text without argument values as it is, and walks arguments of any depth', () => {
    let deep: unknown = 'secret';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(maskedArguments('no quote of the call', { deep })).toBe('no quote of the call');
    expect(maskedArguments('the secret', { deep })).toBe(`the ${MASKED}`);
  });
});
