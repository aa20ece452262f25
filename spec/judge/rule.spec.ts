import { compileRule, matchedText, withValueAt, type Rule } from '../../lib/judge/rule';
import { effectiveAnnotations } from '../../lib/trellis/annotations';
import type { JudgeInput } from '../../lib/types';
import { toolCall, toolResult } from './inputs';

const matched = (rule: Rule, input: JudgeInput) =>
  matchedText(compileRule(rule), input, input.arguments, input.result ?? '');

describe('compileRule', () => {
  it('compiles the tool glob, * when the rule names none', () => {
    expect(compileRule({ surface: 'tool_call', tool: 'fs_*', action: 'block' }).tool.test('fs_read')).toBe(true);
    expect(compileRule({ surface: 'tool_call', action: 'block' }).tool.test('anything')).toBe(true);
  });

  it('splits the argument path and compiles the regex with RE2', () => {
    const compiled = compileRule({
      surface: 'tool_call',
      when: { argument: 'options.url', matches: '^http:' },
      action: 'block',
    });
    expect(compiled.argumentPath).toEqual(['options', 'url']);
    expect(compiled.pattern!.matches('http:')).toBe(true);
  });

  it('normalises the folders of a within rule', () => {
    expect(
      compileRule({
        surface: 'tool_call',
        when: { argument: 'path', within: ['/srv/docs/', '/tmp/./x/..'] },
        action: 'allow',
      }).within,
    ).toEqual(['/srv/docs', '/tmp']);
  });

  it('reads an annotation condition as needing true unless it says otherwise', () => {
    expect(
      compileRule({ surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'block' }).annotation,
    ).toEqual({ name: 'destructiveHint', is: true });
    expect(
      compileRule({ surface: 'tool_call', when: { annotation: 'readOnlyHint', is: false }, action: 'block' })
        .annotation,
    ).toEqual({ name: 'readOnlyHint', is: false });
  });
});

describe('matchedText', () => {
  it('does not apply to another surface or another tool', () => {
    expect(matched({ surface: 'context', action: 'block' }, toolCall('fs_read', {}))).toBeUndefined();
    expect(matched({ surface: 'tool_call', tool: 'fs_*', action: 'block' }, toolCall('net_get', {}))).toBeUndefined();
  });

  it("is '' for a rule without a condition", () => {
    expect(matched({ surface: 'tool_call', tool: 'fs_*', action: 'block' }, toolCall('fs_read', {}))).toBe('');
  });

  it('is the text of the argument the regex matched, a value that is no string as its JSON', () => {
    expect(
      matched(
        { surface: 'tool_call', when: { argument: 'options.url', matches: '^http:' }, action: 'block' },
        toolCall('get', { options: { url: 'http://a' } }),
      ),
    ).toBe('http://a');
    expect(
      matched(
        { surface: 'tool_call', when: { argument: 'files', matches: '\\.\\./' }, action: 'block' },
        toolCall('zip', { files: ['../b'] }),
      ),
    ).toBe('["../b"]');
    expect(
      matched(
        { surface: 'tool_call', when: { argument: 'path', matches: '^/etc' }, action: 'block' },
        toolCall('fs_read', { path: '/srv' }),
      ),
    ).toBeUndefined();
  });

  it("reads a missing argument as '' for allow and block, and leaves a rewrite nothing to rewrite", () => {
    const when = { argument: 'path', matches: '^$' };
    expect(matched({ surface: 'tool_call', when, action: 'block' }, toolCall('fs_read', {}))).toBe('');
    expect(
      matched({ surface: 'tool_call', when, action: 'rewrite', replace: 'x' }, toolCall('fs_read', {})),
    ).toBeUndefined();
  });

  it('is the result for a content rule', () => {
    expect(
      matched(
        { surface: 'context', when: { content: 'sk-[a-z]+' }, action: 'block' },
        toolResult('fs_read', 'key sk-abc'),
      ),
    ).toBe('key sk-abc');
    expect(
      matched({ surface: 'context', when: { content: 'sk-[a-z]+' }, action: 'block' }, toolResult('fs_read', 'clean')),
    ).toBeUndefined();
  });

  it('matches annotations as MCP reads them: a tool that says nothing is destructive', () => {
    const destructive: Rule = { surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'block' };
    expect(matched(destructive, toolCall('db_drop', {}))).toBe('');
    expect(
      matched(destructive, { ...toolCall('db_read', {}), annotations: effectiveAnnotations({ readOnlyHint: true }) }),
    ).toBeUndefined();
  });

  it('needs every path inside for an allow within, and one path not plainly outside for a block within', () => {
    const allow: Rule = { surface: 'tool_call', when: { argument: 'paths', within: ['/srv/docs'] }, action: 'allow' };
    const block: Rule = { ...allow, action: 'block' };
    const mixed = toolCall('fs_read_many', { paths: ['/srv/docs/a', '/etc/passwd'] });
    expect(matched(allow, mixed)).toBeUndefined();
    expect(matched(block, mixed)).toBe('');
    expect(matched(allow, toolCall('fs_read_many', { paths: ['/srv/docs/a'] }))).toBe('');
    expect(matched(block, toolCall('fs_read_many', { paths: ['/etc/passwd'] }))).toBeUndefined();
  });
});

describe('withValueAt', () => {
  it('sets the value at the path in a copy, leaving the original as it was', () => {
    const args = { options: { url: 'http://a', headers: { accept: 'json' } } };
    const copy = withValueAt(args, ['options', 'url'], 'https://a');
    expect(copy).toEqual({ options: { url: 'https://a', headers: { accept: 'json' } } });
    expect(args.options.url).toBe('http://a');
    expect(copy.options).not.toBe(args.options);
  });
});
