/** `{n}`, `{n,}`, `{n,m}` where the scan stands (anything else with a brace is a literal in RE2) */
const COUNT = /\{(\d+)(?:,(\d*))?\}/y;

/** Past an escape at `at` (a backslash): `\p{Greek}`, `\x{263a}` and `\Q...\E` whole. */
function afterEscape(pattern: string, at: number): number {
  const kind = pattern[at + 1];
  if (kind === 'Q') {
    const end = pattern.indexOf('\\E', at + 2);
    return end < 0 ? pattern.length : end + 2;
  }
  if ((kind === 'p' || kind === 'P' || kind === 'x') && pattern[at + 2] === '{') {
    const end = pattern.indexOf('}', at + 3);
    return end < 0 ? pattern.length : end + 1;
  }
  return at + 2;
}

/** Past a character class at `at` (`[`): `]` first is a member, as are escapes and `[:alpha:]`. */
function afterClass(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') {
    if (pattern[i] === '\\') i = afterEscape(pattern, i);
    else if (pattern.startsWith('[:', i)) {
      const end = pattern.indexOf(':]', i + 2);
      i = end < 0 ? i + 1 : end + 2;
    } else i++;
  }
  return i + 1;
}

function afterAtom(pattern: string, at: number): number {
  if (pattern[at] === '\\') return afterEscape(pattern, at);
  return pattern[at] === '[' ? afterClass(pattern, at) : at + 1;
}

/**
 * How many copies RE2's compiler makes of a part of the pattern at most: its repetition counts, nested ones
 * multiplied (`(?:a{10}){100}` is 1,000). A cheap scan before compiling, which such copies make slow too; a pattern
 * that does not parse may be misread here, and is refused by the compiler anyway.
 */
export function repetitionOf(pattern: string): number {
  /** the most copies within each group open at the scan */
  const groups = [1];
  let at = 0;
  while (at < pattern.length) {
    let copies = 1;
    if (pattern[at] === '(') {
      groups.push(1);
      at++;
      continue;
    }
    if (pattern[at] === ')') {
      if (groups.length > 1) copies = groups.pop()!;
      at++;
    } else at = afterAtom(pattern, at);
    COUNT.lastIndex = at;
    for (let count = COUNT.exec(pattern); count; COUNT.lastIndex = at, count = COUNT.exec(pattern)) {
      copies *= Math.max(Number(count[1]), Number(count[2] || 0));
      at = COUNT.lastIndex;
    }
    groups[groups.length - 1] = Math.max(groups[groups.length - 1], copies);
  }
  return Math.max(...groups);
}
