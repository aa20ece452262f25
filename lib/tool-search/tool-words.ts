/** Words the ranking skips: they are in every query and most descriptions, and say nothing about the tool. */
const STOP_WORDS = new Set(
  'a an and are as at be by can could do does for from get give how i in into is it its me my of on or our ' +
    'please show some tell that the their them then there these this to use want we what when where which with ' +
    'would you your'.split(' '),
);

/**
 * Harman's S-stemmer (and `-sses`, `-ches`, `-xes` for `-ss`, `-ch`, `-x`), the mildest of stemmers: `issues` and
 * `issue`, `queries` and `query` are one word, while
 * `running` and `run` stay apart (a stronger stemmer makes more wrong matches than it mends in tools' short texts).
 */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('es') && !/(?:aes|ees|oes)$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('s') && !/(?:us|ss)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * The words of a tool's name or text: `create_pull_request`, `getFileContents` and `API-post-page` split into words.
 */
export function toolWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '' && !STOP_WORDS.has(word))
    .map(stem);
}
