import { globToRegExp } from '../../lib/shared/glob';

describe('globToRegExp', () => {
  it.each<[string, string, boolean]>([
    ['agent-*', 'agent-small', true],
    ['agent-*', 'agent-', true],
    ['agent-*', 'my-agent-small', false],
    ['*-mini', 'gpt-4o-mini', true],
    ['*-mini', 'gpt-4o-mini-2', false],
    ['gpt-*-mini', 'gpt-4o-mini', true],
    ['*', '', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['gpt-4.1', 'gpt-4x1', false],
    ['a+b', 'aab', false],
    ['a+b', 'a+b', true],
    ['(x)|[y]', '(x)|[y]', true],
    ['^$', '^$', true],
    ['c:\\tools\\*', 'c:\\tools\\fs', true],
  ])("'%s' against '%s': %s", (glob, text, matches) => {
    expect(globToRegExp(glob).test(text)).toBe(matches);
  });
});
