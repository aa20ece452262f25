import { queryWords } from '../../lib/tool-search/query-words';

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
});
