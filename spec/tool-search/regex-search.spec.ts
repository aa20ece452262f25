import { BadPattern, MAX_PATTERN_LENGTH, regexSearch } from '../../lib/tool-search/regex-search';
import type { ChatTool } from '../../lib/types';

const tool = (name: string, description: string, parameters: Record<string, unknown> = {}): ChatTool => ({
  type: 'function',
  function: { name, description, parameters },
});

const tools = [
  tool('slack_post_message', 'Post a new message to a Slack channel', {
    properties: { channel_id: { type: 'string' } },
  }),
  tool('create_pull_request', 'Create a new pull request in a GitHub repository'),
  tool('merge_pull_request', 'Merge a pull request'),
  tool('read_file', 'Read a file', {
    properties: { path: { type: 'string', description: 'where the file is on disk' } },
  }),
];

describe('regexSearch', () => {
  it('puts tools whose name matches first, then those whose text does, case-insensitively', () => {
    expect(regexSearch(tools, 'MERGE|github', 5).map((found) => found.name)).toEqual([
      'merge_pull_request',
      'create_pull_request',
    ]);
  });

  it("searches parameters' names and descriptions", () => {
    expect(regexSearch(tools, 'channel_id', 5).map((found) => found.name)).toEqual(['slack_post_message']);
    expect(regexSearch(tools, 'on disk', 5).map((found) => found.name)).toEqual(['read_file']);
  });

  it('answers at most max tools, with their descriptions', () => {
    expect(regexSearch(tools, '.', 2)).toEqual([
      { name: 'slack_post_message', description: 'Post a new message to a Slack channel' },
      { name: 'create_pull_request', description: 'Create a new pull request in a GitHub repository' },
    ]);
  });

  it.each([
    ['(unclosed', 'missing closing )'],
    ['(?<=look)behind', 'invalid named capture'],
    ['x'.repeat(MAX_PATTERN_LENGTH + 1), `longer than ${MAX_PATTERN_LENGTH} characters`],
  ])('refuses %j: %s', (pattern, why) => {
    expect(() => regexSearch(tools, pattern, 5)).toThrow(BadPattern);
    expect(() => regexSearch(tools, pattern, 5)).toThrow(why);
  });
});
