import type { ChatMessage } from '../../../lib/types';
import { elision, elide, toolNames } from '../../../lib/wire/chat/elision';

const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
const messages: ChatMessage[] = [
  { role: 'user', content: 'go' },
  { role: 'assistant', content: null, tool_calls: [call('c1', 'client_tool')] },
  { role: 'tool', tool_call_id: 'c1', content: 'theirs' },
  { role: 'assistant', content: null, tool_calls: [call('a', 'repo_read'), call('b', 'repo_grep')] },
  { role: 'tool', tool_call_id: 'a', content: 'x'.repeat(500) },
  { role: 'tool', tool_call_id: 'b', content: 'y'.repeat(500) },
];

describe('chat elision: where chat completions hold tool results', () => {
  it('names each call id by its tool, from the assistant messages from a given index on', () => {
    expect([...toolNames(messages)]).toEqual([
      ['c1', 'client_tool'],
      ['a', 'repo_read'],
      ['b', 'repo_grep'],
    ]);
    expect([...toolNames(messages, 2)]).toEqual([
      ['a', 'repo_read'],
      ['b', 'repo_grep'],
    ]);
  });

  it("replaces a tool message's content with the placeholder and keeps its other fields", () => {
    expect(elide(messages[4], toolNames(messages))).toEqual({
      role: 'tool',
      tool_call_id: 'a',
      content: "[earlier result of 'repo_read' elided: 500 bytes]",
    });
    expect(elide({ role: 'tool', tool_call_id: 'zz', content: 'é'.repeat(100) }, new Map())).toEqual({
      role: 'tool',
      tool_call_id: 'zz',
      content: "[earlier result of 'unknown' elided: 200 bytes]",
    });
  });

  it('elides tool messages only, one result each, never into a longer text; the latest turn begins at the last assistant message', () => {
    const names = toolNames(messages);
    expect(elision.elide(messages[4], names)).toEqual({
      item: { role: 'tool', tool_call_id: 'a', content: "[earlier result of 'repo_read' elided: 500 bytes]" },
      results: 1,
    });
    expect(elision.elide(messages[2], names)).toBeUndefined();
    expect(elision.elide(messages[0], names)).toBeUndefined();
    expect(elision.latest(messages)).toBe(3);
    expect(elision.latest([{ role: 'user', content: 'hi' }])).toBe(-1);
  });
});
