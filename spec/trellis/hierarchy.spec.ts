import { Hierarchy, succeededIn } from '../../lib/trellis/hierarchy';
import { historyOf } from '../../lib/wire/chat/conversation';
import { toolOutcomeText } from '../../lib/loop/tool-outcome';

const tree = new Hierarchy([
  { tool: 'repo_open', children: [{ tool: 'repo_read', children: ['repo_write'] }] },
  'clock_now',
]);

const refusalOf = (hierarchy: Hierarchy, tool: string, ran: string[]) => {
  const refusal = hierarchy.gate(tool, new Set(ran));
  return refusal && toolOutcomeText(refusal);
};

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
    expect(refusalOf(tree, tool, ran)).toBe(refusal);
  });

  it('keeps only the tools whose whole chain of parents is listed', () => {
    const kept = tree.within(new Set(['repo_open', 'repo_write', 'clock_now']));
    expect(kept.tools).toEqual(['repo_open', 'clock_now']);
    expect(tree.names).toEqual(['repo_open', 'repo_read', 'repo_write', 'clock_now']);
  });

  it("reads the tree from the tools' _meta.parent, ignoring a tool naming itself", () => {
    const tool = (name: string, parent?: unknown) => ({
      name,
      inputSchema: { type: 'object' as const },
      _meta: { parent },
    });
    const listed = Hierarchy.fromTools([
      tool('repo_open'),
      tool('repo_read', 'repo_open'),
      tool('selfish', 'selfish'),
      tool('odd', 42),
      tool('lost', 'gone'),
    ]);
    expect(listed.tools).toEqual(['repo_open', 'repo_read', 'selfish', 'odd', 'lost']);
    expect(listed.names).toEqual(['repo_open', 'repo_read', 'selfish', 'odd', 'lost', 'gone']);
    expect(refusalOf(listed, 'repo_read', [])).toBe("⛔ 'repo_read' is locked: call 'repo_open' first.");
    expect(refusalOf(listed, 'selfish', [])).toBeUndefined();
  });

  it('counts only successful results in the history', () => {
    const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
    const succeeded = succeededIn(
      historyOf([
        { role: 'assistant', tool_calls: [call('1', 'repo_open'), call('2', 'clock_now'), call('3', 'repo_read')] },
        { role: 'tool', tool_call_id: '1', content: 'opened' },
        { role: 'tool', tool_call_id: '2', content: 'tool error: clock broken' },
        { role: 'tool', tool_call_id: '3', content: "⛔ 'repo_read' is locked: call 'repo_open' first." },
        { role: 'tool', tool_call_id: 'nobody', content: 'orphan' },
      ]),
    );
    expect([...succeeded]).toEqual(['repo_open']);
  });
});
