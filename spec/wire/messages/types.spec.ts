import { isToolUse } from '../../../lib/wire/messages/types';

describe('Messages shapes', () => {
  it('tells a tool_use block from the others (server_tool_use is the upstream’s own)', () => {
    expect(
      [
        { type: 'tool_use', id: 't', name: 'f', input: {} },
        { type: 'server_tool_use' },
        { type: 'text', text: 'x' },
      ].map(isToolUse),
    ).toEqual([true, false, false]);
  });
});
