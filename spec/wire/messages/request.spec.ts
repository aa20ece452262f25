import { blocksOf, clientTools, isMessagesRequest, messagesTool } from '../../../lib/wire/messages/request';

describe('the Messages request the loop reads', () => {
  it.each([
    [{ messages: [{ role: 'user', content: 'hi' }] }, true],
    [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [] },
        ],
      },
      true,
    ],
    [{ messages: [] }, false],
    [{ messages: [{ role: 'system', content: 'x' }] }, false],
    [{ messages: ['hi'] }, false],
    [{ prompt: 'hi' }, false],
    [[{ role: 'user' }], false],
    [null, false],
  ])('serves %j: %s', (body, served) => {
    expect(isMessagesRequest(body)).toBe(served);
  });

  it('offers the binding’s tools in the Messages shape, $schema kept, an open schema where MCP gave none', () => {
    const parameters = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };
    expect(messagesTool({ name: 'repo_read', description: 'Read', parameters })).toEqual({
      name: 'repo_read',
      description: 'Read',
      input_schema: parameters,
    });
    expect(messagesTool({ name: 'clock' })).toEqual({
      name: 'clock',
      input_schema: { type: 'object' },
    });
  });

  it('keeps every named tool of the client, of any kind, and reads a content as blocks', () => {
    const tools = [
      { name: 'mine', input_schema: {} },
      { type: 'web_search_20250305', name: 'web_search' },
      { type: 'bash' },
      'junk',
    ];
    expect(clientTools(tools)).toEqual([tools[0], tools[1]]);
    expect(clientTools('nope')).toEqual([]);
    expect(blocksOf('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    expect(blocksOf([{ type: 'text', text: 'a' }, null, { text: 'untyped' }, { type: 'image' }])).toEqual([
      { type: 'text', text: 'a' },
      { type: 'image' },
    ]);
    expect(blocksOf(undefined)).toEqual([]);
  });
});
