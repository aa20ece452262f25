import { toolWords } from './tool-words';

/**
 * Words a user says for what tools' texts call otherwise, in a developer's everyday vocabulary: each word of a group
 * also searches for the others (a bug is an issue, a folder a directory), as do the abbreviations for what they stand for.
 */
const GROUPS = [
  ['issue', 'bug', 'ticket'],
  ['directory', 'folder', 'dir'],
  ['write', 'save', 'store'],
  ['search', 'find', 'lookup', 'look'],
  ['navigate', 'visit', 'go', 'browse'],
  ['script', 'javascript', 'js'],
  ['delete', 'remove', 'erase'],
  ['move', 'rename'],
  ['image', 'picture', 'photo'],
  ['screenshot', 'capture'],
  ['repository', 'repo'],
  ['create', 'make'],
  ['run', 'execute'],
  ['message', 'msg'],
  ['elevation', 'altitude', 'height'],
  ['database', 'db'],
  ['environment', 'env'],
];

const ABBREVIATIONS: Record<string, string> = { pr: 'pull request', mr: 'merge request', url: 'link' };

const related = new Map<string, string[]>();
for (const group of GROUPS) {
  const words = group.flatMap(toolWords);
  for (const word of words)
    related.set(
      word,
      words.filter((other) => other !== word),
    );
}
for (const [short, long] of Object.entries(ABBREVIATIONS)) related.set(short, toolWords(long));

/** The query's own words, and the words they stand for that it does not say itself. */
export function queryWords(query: string): { own: string[]; related: string[] } {
  const own = toolWords(query);
  const said = new Set(own);
  const more = new Set(own.flatMap((word) => related.get(word) ?? []).filter((word) => !said.has(word)));
  return { own, related: [...more] };
}
