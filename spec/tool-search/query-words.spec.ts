import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, queryWords } from '../../lib/tool-search/query-words';

describe('queryWords', () => {
  it("keeps the query's own words and adds the verbs that stand for its verbs", () => {
    expect(queryWords('make a folder for the logs')).toEqual({
      own: ['make', 'folder', 'log'],
      related: ['create', 'add', 'new', 'insert'],
    });
  });

  it('adds no word the query says itself', () => {
    expect(queryWords('find or search').related).toEqual(['query', 'lookup', 'look']);
  });

  it("adds nothing for nouns, which mean other things in other domains' tools", () => {
    expect(queryWords('file a bug in the repo')).toEqual({ own: ['file', 'bug', 'repo'], related: [] });
    expect(queryWords('merge my PR')).toEqual({ own: ['merge', 'pr'], related: [] });
  });

  it('reads MAX_QUERY_WORDS words of the first MAX_QUERY_CHARS characters', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`);
    expect(queryWords(words.join(' ')).own).toEqual(words.slice(0, MAX_QUERY_WORDS));
    expect(queryWords(`${'x'.repeat(MAX_QUERY_CHARS - 1)} create`).own).toEqual(['x'.repeat(MAX_QUERY_CHARS - 1)]);
  });
});
