import type { MessageParam } from '../../../lib/wire/messages/request';
import { elidedResult, elision, toolUseNames } from '../../../lib/wire/messages/elision';

const long = 'x'.repeat(800);
const messages: MessageParam[] = [
  { role: 'user', content: 'go' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_a', name: 'repo_read', input: {} },
      { type: 'tool_use', id: 'toolu_b', name: 'clock_now', input: {} },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_a', content: [{ type: 'text', text: long }], is_error: false },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: '12:00' },
      { type: 'text', text: 'and then?' },
    ],
  },
];

describe('Messages elision: tool_result blocks inside user messages', () => {
  it('names each tool_use id by its tool', () => {
    expect([...toolUseNames(messages)]).toEqual([
      ['toolu_a', 'repo_read'],
      ['toolu_b', 'clock_now'],
    ]);
  });

  it("replaces a tool_result's content (blocks measured as JSON) and keeps its other fields", () => {
    const block = (messages[2].content as Record<string, unknown>[])[0];
    expect(elidedResult(block, toolUseNames(messages))).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_a',
      content: `[earlier result of 'repo_read' elided: ${JSON.stringify([{ type: 'text', text: long }]).length} bytes]`,
      is_error: false,
    });
  });

  it('elides each long result where it stands, counting them; short results, other blocks and string contents stay', () => {
    const names = toolUseNames(messages);
    const elided = elision.elide(messages[2], names);
    expect(elided?.results).toBe(1);
    expect((elided?.item.content as Record<string, unknown>[]).map((block) => block.content ?? block.text)).toEqual([
      `[earlier result of 'repo_read' elided: ${JSON.stringify([{ type: 'text', text: long }]).length} bytes]`,
      '12:00',
      'and then?',
    ]);
    expect(elision.elide(messages[0], names)).toBeUndefined();
    expect(elision.elide(messages[1], names)).toBeUndefined();
    expect(elision.latest(messages)).toBe(2);
  });
});
