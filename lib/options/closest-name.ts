export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(
        row[j] + 1,
        row[j - 1] + 1,
        diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return row[b.length];
}

/** A name's words, lower-cased: `maxTurnsPerLoop` is max, turns, per, loop; `listTTLSec` is list, ttl, sec. */
const wordsOf = (name: string): string[] =>
  name
    .split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

/** The same word, or the same with one letter off (`turn`, `turns`); a short word only as itself. */
const sameWord = (a: string, b: string): boolean =>
  a === b || (Math.min(a.length, b.length) >= 4 && distance(a, b) <= 1);

/**
 * The most words two names share in order with none swapped for another (between two shared words, or before the
 * first or after the last, leftover words on one side only: one name adds or leaves out words, it does not replace).
 */
function sharedInOrder(a: string[], b: string[]): number {
  const best = (i: number, j: number, gapA: boolean, gapB: boolean): number => {
    if (gapA && gapB) return -Infinity;
    if (i === a.length && j === b.length) return 0;
    const matched = i < a.length && j < b.length && sameWord(a[i], b[j]) ? 1 + best(i + 1, j + 1, false, false) : -1;
    const skipA = i < a.length ? best(i + 1, j, true, gapB) : -Infinity;
    const skipB = j < b.length ? best(i, j + 1, gapA, true) : -Infinity;
    return Math.max(matched, skipA, skipB);
  };
  return best(0, 0, false, false);
}

/**
 * A known name that keeps the key's meaning: two words at least shared in order, none swapped; the one sharing most,
 * then with fewest words left over. `maxTurnsPerLoop` is a binding's `maxTurns` (agentLoop's `defaultMaxTurns`), not
 * `maxTokensPerLoop`, which is closer letter by letter but counts another thing.
 */
function sharingWords(key: string, known: string[]): string | undefined {
  const words = wordsOf(key);
  return known
    .map((name) => {
      const theirs = wordsOf(name);
      const shared = sharedInOrder(words, theirs);
      return { name, shared, left: words.length + theirs.length - 2 * shared };
    })
    .filter(({ shared }) => shared >= 2)
    .sort((x, y) => y.shared - x.shared || x.left - y.left)[0]?.name;
}

export function closest(key: string, known: string[]): string | undefined {
  const containing = known.find((name) => name.toLowerCase().includes(key.toLowerCase()));
  if (containing) return containing;
  const sharing = sharingWords(key, known);
  if (sharing) return sharing;
  const best = known.map((name) => ({ name, d: distance(key, name) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}
