import {
  BadPattern,
  MAX_MATCH_WORK,
  MAX_PATTERN_LENGTH,
  MAX_PROGRAM_SIZE,
  MAX_REPETITION,
  MAX_SEARCH_WORK,
  MAX_SEARCHED_CHARS,
  regexSearch,
} from '../../lib/tool-search/regex-search';
import type { LoopTool } from '../../lib/loop/loop-tool';

const tool = (name: string, description: string, parameters: Record<string, unknown> = {}): LoopTool => ({
  name,
  description,
  parameters,
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
  it('puts tools whose name matches first, then those whose text does, case-insensitively', async () => {
    expect((await regexSearch(tools, 'MERGE|github', 5)).map((found) => found.name)).toEqual([
      'merge_pull_request',
      'create_pull_request',
    ]);
  });

  it("searches parameters' names and descriptions", async () => {
    expect((await regexSearch(tools, 'channel_id', 5)).map((found) => found.name)).toEqual(['slack_post_message']);
    expect((await regexSearch(tools, 'on disk', 5)).map((found) => found.name)).toEqual(['read_file']);
  });

  it('answers at most max tools, with their descriptions', async () => {
    expect(await regexSearch(tools, '.', 2)).toEqual([
      { name: 'slack_post_message', description: 'Post a new message to a Slack channel' },
      { name: 'create_pull_request', description: 'Create a new pull request in a GitHub repository' },
    ]);
  });

  it.each([
    ['(unclosed', 'missing closing )'],
    ['(?<=look)behind', 'invalid named capture'],
    ['x'.repeat(MAX_PATTERN_LENGTH + 1), `longer than ${MAX_PATTERN_LENGTH} characters`],
  ])('refuses %j: %s', async (pattern, why) => {
    await expect(regexSearch(tools, pattern, 5)).rejects.toThrow(BadPattern);
    await expect(regexSearch(tools, pattern, 5)).rejects.toThrow(why);
  });

  it('refuses a pattern repeating more than MAX_REPETITION copies, before compiling or searching a 40 KB description', async () => {
    const long = [tool('notes', 'ab'.repeat(20_000))];
    await expect(regexSearch(long, '(?:a?.|.b?){0,1000}QQ', 5)).rejects.toThrow(
      new BadPattern(
        `the pattern is too complex: its repetition counts ({n} or {n,m}) come to 1000 copies of what they repeat (nested counts multiply), at most ${MAX_REPETITION}; use a simpler pattern, e.g. "pull_request|merge"`,
      ),
    );
  });

  it('refuses a pattern whose RE2 program is larger than MAX_PROGRAM_SIZE', async () => {
    await expect(regexSearch(tools, '(?:a?.|.b?){0,30}QQ', 5)).rejects.toThrow(
      new BadPattern(
        `the pattern is too complex: its RE2 program has 244 instructions, at most ${MAX_PROGRAM_SIZE} (each repetition count copies what it repeats); use a simpler pattern, e.g. "pull_request|merge"`,
      ),
    );
  });

  it('searches each text up to MAX_SEARCHED_CHARS characters, fewer for a larger program', async () => {
    const at = (offset: number) => [tool('far', `${'x'.repeat(offset)}needle`)];
    expect(await regexSearch(at(MAX_SEARCHED_CHARS - 6), 'needle', 5)).toHaveLength(1);
    expect(await regexSearch(at(MAX_SEARCHED_CHARS - 5), 'needle', 5)).toEqual([]);
    // a program of 199 instructions (`needle|z{95}y{95}`) searches MAX_MATCH_WORK / 199 characters of each text
    const chars = Math.floor(MAX_MATCH_WORK / 199);
    expect(await regexSearch(at(chars - 6), 'needle|z{95}y{95}', 5)).toHaveLength(1);
    expect(await regexSearch(at(chars - 5), 'needle|z{95}y{95}', 5)).toEqual([]);
  });

  it('stops past MAX_SEARCH_WORK with a readable refusal', async () => {
    const pattern = 'q{95}r{95}';
    const many = Array.from({ length: MAX_SEARCH_WORK / MAX_MATCH_WORK + 1 }, (_, i) =>
      tool(`t${i}`, 'x'.repeat(MAX_SEARCHED_CHARS)),
    );
    await expect(regexSearch(many, pattern, 5)).rejects.toThrow(
      new BadPattern(
        `the pattern is too costly to search the text of ${many.length} tools (its RE2 program has 192 instructions); use a simpler pattern, e.g. "pull_request|merge"`,
      ),
    );
  });

  it('stops searching once it found max tools', async () => {
    const many = [...tools, ...Array.from({ length: 200 }, (_, i) => tool(`t${i}`, 'q'.repeat(MAX_SEARCHED_CHARS)))];
    expect((await regexSearch(many, 'q{95}r{95}|pull', 2)).map((found) => found.name)).toEqual([
      'create_pull_request',
      'merge_pull_request',
    ]);
  });

  it('gives the event loop back during a long search', async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const slow = Array.from({ length: 20 }, (_, i) => tool(`t${i}`, 'ab'.repeat(MAX_SEARCHED_CHARS)));
    try {
      expect(await regexSearch(slow, '(?:a?.|.b?){0,24}QQ', 5)).toEqual([]);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
