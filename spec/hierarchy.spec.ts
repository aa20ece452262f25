import { Hierarchy, succeededInHistory } from '../lib/hierarchy';

const tree = new Hierarchy([{ tool: 'repo_open', children: [{ tool: 'repo_read', children: ['repo_write'] }] }, 'clock_now']);

describe('Hierarchy', () => {
  it('lists every tool, locked children included', () => {
    expect(tree.tools).toEqual(['repo_open', 'repo_read', 'repo_write', 'clock_now']);
    expect(tree.parentOf('repo_write')).toBe('repo_read');
  });

  it.each([
    ['repo_open', [], undefined],
    ['clock_now', [], undefined],
    ['repo_read', [], "⛔ 'repo_read' is locked: call 'repo_open' first."],
    ['repo_read', ['repo_open'], undefined],
    ['repo_write', ['repo_open'], "⛔ 'repo_write' is locked: call 'repo_read' first."],
  ])('gates %s after %j', (tool, ran, refusal) => {
    expect(tree.gate(tool, new Set(ran))).toBe(refusal);
  });

  it('counts only successful results in the history', () => {
    const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
    const succeeded = succeededInHistory([
      { role: 'assistant', tool_calls: [call('1', 'repo_open'), call('2', 'clock_now'), call('3', 'repo_read')] },
      { role: 'tool', tool_call_id: '1', content: 'opened' },
      { role: 'tool', tool_call_id: '2', content: 'tool error: clock broken' },
      { role: 'tool', tool_call_id: '3', content: "⛔ 'repo_read' is locked: call 'repo_open' first." },
      { role: 'tool', tool_call_id: 'nobody', content: 'orphan' },
    ]);
    expect([...succeeded]).toEqual(['repo_open']);
  });
});
