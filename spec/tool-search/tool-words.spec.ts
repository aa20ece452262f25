import { toolWords } from '../../lib/tool-search/tool-words';

describe('toolWords', () => {
  it.each<[string, string[]]>([
    ['create_pull_request', ['create', 'pull', 'request']],
    ['getFileContents', ['file', 'content']],
    ['API-post-page', ['api', 'post', 'page']],
    ['browser_take_screenshot', ['browser', 'take', 'screenshot']],
    ['List the issues of a repository', ['list', 'issue', 'repository']],
    [
      'queries, addresses, searches, boxes, files, status, class',
      ['query', 'address', 'search', 'box', 'file', 'status', 'class'],
    ],
    ['Ünïcode wörter', ['ünïcode', 'wörter']],
    ['', []],
  ])('%j: %j', (text, words) => {
    expect(toolWords(text)).toEqual(words);
  });
});
