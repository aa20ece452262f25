import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { rulesJudge } from '../../lib/judge/rules';
import type { Rule } from '../../lib/judge/rule';
import { effectiveAnnotations } from '../../lib/trellis/annotations';
import type { JudgeInput, ToolAnnotations, Verdict } from '../../lib/types';
import { javascript } from '../helpers/javascript';
import { judgeContext, toolCall, toolResult } from './inputs';

const noShell: Rule = { surface: 'tool_call', tool: 'shell_exec', action: 'block', reason: 'no shell' };
const insideDocs: Rule = {
  surface: 'tool_call',
  tool: 'fs_*',
  when: { argument: 'path', matches: '^/srv/docs/' },
  action: 'allow',
};
const outsideDocs: Rule = { surface: 'tool_call', tool: 'fs_*', action: 'block', reason: 'outside /srv/docs' };
/** An allow-list: rules match in linear time (RE2), so the allow rule comes first rather than a lookahead. */
const onlyDocs = [insideDocs, outsideDocs];
const publicDocs: Rule = {
  surface: 'tool_call',
  tool: 'fs_read',
  when: { argument: 'path', matches: '^/srv/docs/public/' },
  action: 'allow',
};
const noParentDirs: Rule = {
  surface: 'tool_call',
  when: { argument: 'files', matches: '\\.\\./' },
  action: 'block',
  reason: 'no ../',
};
const httpsOnly: Rule = {
  surface: 'tool_call',
  tool: 'http_get',
  when: { argument: 'options.url', matches: '^http:' },
  action: 'rewrite',
  replace: 'https:',
  reason: 'https only',
};
const apiKeys: Rule = {
  surface: 'context',
  when: { content: 'sk-[A-Za-z0-9]{20,}' },
  action: 'rewrite',
  replace: '[redacted]',
  reason: 'api key',
};
const cardNumbers: Rule = {
  surface: 'context',
  when: { content: '\\b(?:\\d[ -]?){12,15}\\d\\b' },
  action: 'rewrite',
  replace: '[card]',
  reason: 'card number',
};
const privateKeys: Rule = {
  surface: 'context',
  tool: 'fs_read',
  when: { content: 'BEGIN PRIVATE KEY' },
  action: 'block',
  reason: 'private key',
};
const publicResults: Rule = { surface: 'context', tool: 'public_*', action: 'allow' };

const withinDocs: Rule = {
  surface: 'tool_call',
  tool: 'fs_*',
  when: { argument: 'path', within: ['/srv/docs'] },
  action: 'allow',
};
const withinDocsPaths: Rule = {
  surface: 'tool_call',
  tool: 'fs_*',
  when: { argument: 'paths', within: ['/srv/docs'] },
  action: 'allow',
};
const noSecrets: Rule = {
  surface: 'tool_call',
  when: { argument: 'paths', within: ['/srv/docs/secrets'] },
  action: 'block',
  reason: 'secrets',
};
const noDestructive: Rule = {
  surface: 'tool_call',
  when: { annotation: 'destructiveHint' },
  action: 'block',
  reason: 'destructive',
};
const onlyReadOnly: Rule = {
  surface: 'tool_call',
  when: { annotation: 'readOnlyHint', is: false },
  action: 'block',
  reason: 'read-only tools only',
};
const annotated = (tool: string, annotations: ToolAnnotations): JudgeInput => ({
  ...toolCall(tool, {}),
  annotations: effectiveAnnotations(annotations),
});

const KEY = 'sk-abcdefghijklmnopqrstuvwx';
const CARD = '4111 1111 1111 1111';

const table: [string, Rule[], JudgeInput, Verdict][] = [
  ['denies a tool', [noShell], toolCall('shell_exec', { cmd: 'ls' }), { action: 'block', reason: 'no shell' }],
  ['lets other tools through', [noShell], toolCall('shell', { cmd: 'ls' }), { action: 'allow' }],
  [
    'matches the whole tool name, not its start',
    [noShell],
    toolCall('shell_exec_v2', { cmd: 'ls' }),
    { action: 'allow' },
  ],
  [
    'matches the whole tool name, not its end',
    [noShell],
    toolCall('my_shell_exec', { cmd: 'ls' }),
    { action: 'allow' },
  ],
  [
    'lets a glob star match nothing',
    [{ ...noShell, tool: 'shell*' }],
    toolCall('shell', { cmd: 'ls' }),
    { action: 'block', reason: 'no shell' },
  ],
  [
    'denies a path outside the folder',
    onlyDocs,
    toolCall('fs_write', { path: '/etc/passwd' }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  ['allows a path inside the folder', onlyDocs, toolCall('fs_write', { path: '/srv/docs/a.md' }), { action: 'allow' }],
  [
    'reads a missing argument as empty',
    onlyDocs,
    toolCall('fs_list', {}),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  ['matches the tool glob only', onlyDocs, toolCall('net_fs_get', { path: '/etc/passwd' }), { action: 'allow' }],
  [
    'judges a non-string value by its JSON',
    [noParentDirs],
    toolCall('zip', { files: ['a', '../b'] }),
    { action: 'block', reason: 'no ../' },
  ],
  [
    'follows a dotted path into arrays',
    [{ ...outsideDocs, when: { argument: 'files.1.path', matches: '^/etc' } }],
    toolCall('fs_copy', { files: [{ path: '/srv/docs/a' }, { path: '/etc/shadow' }] }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'does not read inherited properties',
    [{ ...outsideDocs, when: { argument: 'options.__proto__', matches: '^\\{\\}$' } }],
    toolCall('fs_read', { options: { a: 1 } }),
    { action: 'allow' },
  ],
  [
    'first match wins: allow before block',
    [publicDocs, { ...noShell, tool: 'fs_*' }],
    toolCall('fs_read', { path: '/srv/docs/public/a' }),
    { action: 'allow' },
  ],
  [
    'first match wins: block before allow',
    [{ ...noShell, tool: 'fs_*' }, publicDocs],
    toolCall('fs_read', { path: '/srv/docs/public/a' }),
    { action: 'block', reason: 'no shell' },
  ],
  ['allows by default', [], toolCall('shell_exec', { cmd: 'rm -rf /' }), { action: 'allow' }],
  ['keeps tool_call rules off the context surface', [noShell], toolResult('shell_exec', 'ok'), { action: 'allow' }],
  [
    'asks a person about a destructive tool',
    [{ surface: 'tool_call', when: { annotation: 'destructiveHint' }, action: 'ask', reason: 'it deletes' }],
    toolCall('db_drop', {}),
    { action: 'ask', reason: 'it deletes' },
  ],
  [
    'asks with the arguments rewritten before it',
    [httpsOnly, { surface: 'tool_call', tool: 'http_*', action: 'ask' }],
    toolCall('http_get', { options: { url: 'http://a.example/' } }),
    { action: 'ask', arguments: { options: { url: 'https://a.example/' } } },
  ],
  [
    'takes an approved call for allowed, rewrites before it kept',
    [httpsOnly, { surface: 'tool_call', tool: 'http_*', action: 'ask' }, { ...noShell, tool: 'http_*' }],
    { ...toolCall('http_get', { options: { url: 'http://a.example/' } }), approved: true },
    { action: 'rewrite', arguments: { options: { url: 'https://a.example/' } }, reason: 'https only' },
  ],
  [
    'rewrites an argument',
    [httpsOnly],
    toolCall('http_get', { options: { url: 'http://a.example/http:' } }),
    { action: 'rewrite', arguments: { options: { url: 'https://a.example/http:' } }, reason: 'https only' },
  ],
  [
    'does not invent a missing argument',
    [{ ...httpsOnly, when: { argument: 'options.url', matches: '^' } }],
    toolCall('http_get', {}),
    { action: 'allow' },
  ],
  [
    'redacts API keys, every one',
    [apiKeys],
    toolResult('fs_read', `a=${KEY} b=${KEY}x`),
    { action: 'rewrite', result: 'a=[redacted] b=[redacted]', reason: 'api key' },
  ],
  [
    'redacts card numbers',
    [apiKeys, cardNumbers],
    toolResult('db_query', `card ${CARD}, id 1234`),
    { action: 'rewrite', result: 'card [card], id 1234', reason: 'card number' },
  ],
  [
    'applies every redaction before a decision',
    [apiKeys, cardNumbers],
    toolResult('db_query', `${KEY} ${CARD}`),
    { action: 'rewrite', result: '[redacted] [card]', reason: 'api key; card number' },
  ],
  ['leaves clean results alone', [apiKeys, cardNumbers], toolResult('db_query', 'sk-short 4111'), { action: 'allow' }],
  [
    'blocks a result',
    [privateKeys],
    toolResult('fs_read', '-----BEGIN PRIVATE KEY-----'),
    { action: 'block', reason: 'private key' },
  ],
  [
    'blocks a result even after a redaction',
    [apiKeys, privateKeys],
    toolResult('fs_read', `${KEY} BEGIN PRIVATE KEY`),
    { action: 'block', reason: 'private key' },
  ],
  [
    'stops at an allow on the context surface',
    [publicResults, cardNumbers],
    toolResult('public_cards', CARD),
    { action: 'allow' },
  ],
  [
    'keeps redactions made before an allow',
    [cardNumbers, publicResults],
    toolResult('public_cards', CARD),
    { action: 'rewrite', result: '[card]', reason: 'card number' },
  ],
  [
    'keeps context rules off the tool_call surface',
    [apiKeys],
    toolCall('fs_write', { text: KEY }),
    { action: 'allow' },
  ],
  [
    'says which call was refused',
    [{ surface: 'tool_call', tool: 'shell_*', action: 'block' }],
    toolCall('shell_exec', {}),
    { action: 'block', reason: "'shell_exec' may not be called" },
  ],
  [
    'says which result was withheld',
    [{ surface: 'context', action: 'block' }],
    toolResult('fs_read', 'x'),
    { action: 'block', reason: "the result of 'fs_read' is withheld" },
  ],
  [
    'rewrites without a reason',
    [{ ...apiKeys, reason: undefined }],
    toolResult('fs_read', KEY),
    { action: 'rewrite', result: '[redacted]' },
  ],
  [
    'within: allows a path inside the folder',
    [withinDocs, outsideDocs],
    toolCall('fs_read', { path: '/srv/docs/a/../b.md' }),
    { action: 'allow' },
  ],
  [
    'within: blocks a path that climbs out, where a regex allow-list lets it through',
    [withinDocs, outsideDocs],
    toolCall('fs_read', { path: '/srv/docs/../../etc/passwd' }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    '(the regex allow-list it replaces)',
    onlyDocs,
    toolCall('fs_read', { path: '/srv/docs/../../etc/passwd' }),
    { action: 'allow' },
  ],
  [
    'within: blocks a percent-encoded climb',
    [withinDocs, outsideDocs],
    toolCall('fs_read', { path: '/srv/docs/%2e%2e/%2e%2e/etc/passwd' }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'within: blocks a NUL',
    [withinDocs, outsideDocs],
    toolCall('fs_read', { path: '/srv/docs/a\u0000/../../../etc/passwd' }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'within: blocks a missing path',
    [withinDocs, outsideDocs],
    toolCall('fs_read', {}),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'within: allows a list whose every path is inside',
    [withinDocsPaths, outsideDocs],
    toolCall('fs_read_many', { paths: ['/srv/docs/a', '/srv/docs/b/c'] }),
    { action: 'allow' },
  ],
  [
    'within: blocks a list with one path outside',
    [withinDocsPaths, outsideDocs],
    toolCall('fs_read_many', { paths: ['/srv/docs/a', '/srv/docs/../etc/shadow'] }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'within: blocks an empty list',
    [withinDocsPaths, outsideDocs],
    toolCall('fs_read_many', { paths: [] }),
    { action: 'block', reason: 'outside /srv/docs' },
  ],
  [
    'within, on a block rule: blocks a list with one path inside',
    [noSecrets],
    toolCall('fs_read_many', { paths: ['/srv/docs/a', '/srv/docs/x/../secrets/k'] }),
    { action: 'block', reason: 'secrets' },
  ],
  [
    'within, on a block rule: blocks a doubtful path',
    [noSecrets],
    toolCall('fs_read_many', { paths: ['/srv/docs/x%2fy/../../secrets/k'] }),
    { action: 'block', reason: 'secrets' },
  ],
  [
    'within, on a block rule: lets paths plainly outside through',
    [noSecrets],
    toolCall('fs_read_many', { paths: ['/srv/docs/a', '/srv/docs/secrets2'] }),
    { action: 'allow' },
  ],
  [
    'blocks a tool annotated destructive',
    [noDestructive],
    annotated('db_drop', { destructiveHint: true }),
    { action: 'block', reason: 'destructive' },
  ],
  [
    'lets a read-only tool through',
    [noDestructive],
    annotated('db_read', { readOnlyHint: true, destructiveHint: true }),
    { action: 'allow' },
  ],
  [
    'lets a tool that says it is not destructive through',
    [noDestructive],
    annotated('db_insert', { destructiveHint: false }),
    { action: 'allow' },
  ],
  [
    'reads a tool without annotations as destructive, as MCP does',
    [noDestructive],
    toolCall('db_anything', {}),
    { action: 'block', reason: 'destructive' },
  ],
  [
    'matches an annotation that must be false',
    [onlyReadOnly],
    annotated('db_insert', { destructiveHint: false }),
    { action: 'block', reason: 'read-only tools only' },
  ],
  [
    'lets the read-only tools through that rule',
    [onlyReadOnly],
    annotated('db_read', { readOnlyHint: true }),
    { action: 'allow' },
  ],
  [
    'reads an unknown annotation as true only when it is true',
    [{ ...noDestructive, when: { annotation: 'x-costly' } }],
    annotated('gpu', { 'x-costly': 'yes' }),
    { action: 'allow' },
  ],
  [
    'matches a custom annotation set to true',
    [{ ...noDestructive, when: { annotation: 'x-costly' } }],
    annotated('gpu', { 'x-costly': true }),
    { action: 'block', reason: 'destructive' },
  ],
];

describe('rulesJudge', () => {
  it.each(table)('%s', async (_name, rules, input, expected) => {
    await expect(rulesJudge(rules).evaluate(input, judgeContext())).resolves.toEqual(expected);
  });

  it("rewrites a copy of the arguments, never the caller's", async () => {
    const args = { options: { url: 'http://a.example', headers: { accept: 'json' } } };
    const verdict = await rulesJudge([httpsOnly]).evaluate(toolCall('http_get', args), judgeContext());
    expect(args.options.url).toBe('http://a.example');
    expect(verdict).toEqual({
      action: 'rewrite',
      arguments: { options: { url: 'https://a.example', headers: { accept: 'json' } } },
      reason: 'https only',
    });
  });

  it('is fixed when made: later changes to the rules array do not count', async () => {
    const rules = [noShell];
    const judge = rulesJudge(rules);
    rules.length = 0;
    await expect(judge.evaluate(toolCall('shell_exec', {}), judgeContext())).resolves.toEqual({
      action: 'block',
      reason: 'no shell',
    });
  });

  it('judges the same rule the same way twice (no regex state between calls)', async () => {
    const judge = rulesJudge([apiKeys]);
    const input = toolResult('fs_read', KEY);
    await judge.evaluate(input, judgeContext());
    await expect(judge.evaluate(input, judgeContext())).resolves.toEqual({
      action: 'rewrite',
      result: '[redacted]',
      reason: 'api key',
    });
  });

  // In a child process: a backtracking engine would block this one's event loop for hours, and jest's own timeout
  // could never fire; the child is killed after a generous 60 s instead, and the test fails.
  it("matches the catastrophic '(a+)+$' against 'a' x 40 + '!' in linear time, in `matches` and in `content`", async () => {
    const script = `
      const { rulesJudge } = require(${JSON.stringify(javascript('lib/judge/rules.ts'))});
      const evil = '(a+)+$';
      const text = 'a'.repeat(40) + '!';
      const judge = rulesJudge([
        { surface: 'tool_call', when: { argument: 'q', matches: evil }, action: 'block', reason: 'evil' },
        { surface: 'context', when: { content: evil }, action: 'block', reason: 'evil' },
      ]);
      Promise.all([
        judge.evaluate({ surface: 'tool_call', binding: 'b', tool: 't', arguments: { q: text } }),
        judge.evaluate({ surface: 'context', binding: 'b', tool: 't', arguments: {}, result: text }),
        judge.evaluate({ surface: 'context', binding: 'b', tool: 't', arguments: {}, result: 'a'.repeat(40) }),
      ]).then((verdicts) => console.log(JSON.stringify(verdicts)));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
      cwd: path.join(__dirname, '../..'),
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual([{ action: 'allow' }, { action: 'allow' }, { action: 'block', reason: 'evil' }]);
  }, 90_000);

  it('rewrites with $1 and $& as String.replace does', async () => {
    const masked: Rule = {
      surface: 'context',
      when: { content: 'sk-([a-z]{4})[a-z]+' },
      action: 'rewrite',
      replace: 'sk-$1… ($& was $$ secret)',
    };
    await expect(
      rulesJudge([masked]).evaluate(toolResult('fs_read', 'key sk-abcdefgh'), judgeContext()),
    ).resolves.toEqual({
      action: 'rewrite',
      result: 'key sk-abcd… (sk-abcdefgh was $ secret)',
    });
  });
});
