import { folderOf, placementOf, placementsOf } from '../../lib/judge/paths-within';

const DOCS = [folderOf('/srv/docs/')];

describe('placementOf (a path against the folders of a `within` rule)', () => {
  it.each([
    ['/srv/docs', 'inside'],
    ['/srv/docs/', 'inside'],
    ['/srv/docs/a/b.md', 'inside'],
    ['/srv/docs/./a/../b.md', 'inside'],
    ['//srv//docs/a.md', 'inside'],
    ['/srv/docs/%61.md', 'inside'],
    ['/srv/docs/../../etc/passwd', 'outside'],
    ['/srv/docs%2f..%2f..%2fetc', 'outside'],
    // as written they name folders called '%2e%2e'; decoded, they climb out
    ['/srv/docs/%2e%2e/%2e%2e/etc/passwd', 'doubtful'],
    ['/srv/docs/%252e%252e/secret', 'doubtful'],
    ['/srv/docs2/a.md', 'outside'],
    ['/srv/doc', 'outside'],
    ['/etc/passwd', 'outside'],
    // %2f splits a segment only when decoded: one reading stays inside, the other climbs out
    ['/srv/docs/q%2fr/../../passwd', 'doubtful'],
    ['/srv/docs/q\\r/../../passwd', 'doubtful'],
    ['/srv/docs/a.md\u0000.png', 'doubtful'],
    ['/srv/docs/a%00.md', 'doubtful'],
    ['/srv/docs/a.md\n/etc/passwd', 'doubtful'],
    ['/srv/docs/a%0d.md', 'doubtful'],
    ['/srv/docs/100%.md', 'inside'],
    ['/srv/docs/%zz%41', 'doubtful'],
    ['/srv/docs/%25252525252e', 'doubtful'],
    ['docs/a.md', 'doubtful'],
    ['~/docs', 'doubtful'],
    ['', 'doubtful'],
  ])('%j is %s', (path, placement) => {
    expect(placementOf(path, DOCS)).toBe(placement);
  });

  it('reads a value that is not a string as doubtful', () => {
    expect(placementOf({ toString: () => '/srv/docs/a' }, DOCS)).toBe('doubtful');
    expect(placementOf(['/srv/docs/a'], DOCS)).toBe('doubtful');
  });

  it('takes any of several folders, and / as everything absolute', () => {
    expect(placementOf('/tmp/x', [folderOf('/srv/docs'), folderOf('/tmp')])).toBe('inside');
    expect(placementOf('/etc/../tmp/x', [folderOf('/')])).toBe('inside');
  });

  it('names one placement per path: none for a missing argument, one per item of a list', () => {
    expect(placementsOf(undefined, DOCS)).toEqual([]);
    expect(placementsOf('/srv/docs/a', DOCS)).toEqual(['inside']);
    expect(placementsOf(['/srv/docs/a', '/srv/docs/../b', 3], DOCS)).toEqual(['inside', 'outside', 'doubtful']);
  });
});
