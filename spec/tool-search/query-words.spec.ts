import { queryWords } from '../../lib/tool-search/query-words';

describe('queryWords', () => {
  it("keeps the query's own words and adds what they stand for", () => {
    expect(queryWords('file a bug in the repo')).toEqual({
      own: ['file', 'bug', 'repo'],
      related: ['issue', 'ticket', 'repository'],
    });
  });

  it('spells out abbreviations', () => {
    expect(queryWords('merge my PR')).toEqual({ own: ['merge', 'pr'], related: ['pull', 'request'] });
  });

  it('adds no word the query says itself', () => {
    expect(queryWords('folder or directory').related).toEqual(['dir']);
  });

  it('adds nothing for words it has no others for', () => {
    expect(queryWords('weather in Berlin')).toEqual({ own: ['weather', 'berlin'], related: [] });
  });
});
