import { toolWords } from './tool-words';

/**
 * The verbs tools are named with, each with the everyday verbs a user says for it: each word of a group also
 * searches for the others (`get` and `show` are stop words). Only verbs of actions any tool catalog has, no nouns of
 * one domain (a bug is not always an issue).
 */
const VERBS = [
  ['fetch', 'retrieve', 'read', 'view'],
  ['list', 'enumerate'],
  ['create', 'make', 'add', 'new', 'insert'],
  ['update', 'edit', 'modify', 'change', 'set'],
  ['delete', 'remove', 'erase', 'destroy'],
  ['search', 'find', 'query', 'lookup', 'look'],
  ['run', 'execute', 'invoke', 'trigger', 'start', 'launch'],
  ['send', 'post', 'publish'],
  ['write', 'save', 'store'],
  ['navigate', 'go', 'visit', 'browse'],
];

const related = new Map<string, string[]>();
for (const group of VERBS) {
  const words = group.flatMap(toolWords);
  for (const word of words)
    related.set(
      word,
      words.filter((other) => other !== word),
    );
}

/**
 * A query is read up to this many characters and words (the verbs it stands for are a few more): each word searched
 * costs a pass over the tools that have it.
 */
export const MAX_QUERY_CHARS = 1_000;
export const MAX_QUERY_WORDS = 32;

/** The query's own words, and the verbs that stand for those it says and that it does not say itself. */
export function queryWords(query: string): { own: string[]; related: string[] } {
  const own = toolWords(query.slice(0, MAX_QUERY_CHARS)).slice(0, MAX_QUERY_WORDS);
  const said = new Set(own);
  const more = new Set(own.flatMap((word) => related.get(word) ?? []).filter((word) => !said.has(word)));
  return { own, related: [...more] };
}
