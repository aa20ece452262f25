import { messagesWire } from '../../../lib/wire/messages/messages';
import { wireFor } from '../../../lib/wire/wires';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };

describe('the Anthropic Messages wire', () => {
  it('serves .../messages, with the headers its upstream needs', () => {
    expect(
      ['/v1/messages', '/v1/chat/completions', '/v1/messages/count_tokens'].map(
        (path) => wireFor(path) === messagesWire,
      ),
    ).toEqual([true, false, false]);
    expect(messagesWire.upstreamHeaders).toEqual(['x-api-key', 'anthropic-version', 'anthropic-beta']);
  });

  it("asks every turn with the client's fields and the binding's tools before the client's own, never the approval tool", () => {
    const theirs = { name: 'get_location', input_schema: { type: 'object' } };
    const server = { type: 'web_search_20250305', name: 'web_search' };
    const opened = messagesWire.open(
      {
        model: 'claude',
        max_tokens: 1024,
        system: 'be brief',
        thinking: { type: 'enabled' },
        messages: [user],
        tools: [theirs, server, { name: 'approve_tool_call' }],
      },
      loopSetup([loopTool('repo_read')]),
    );
    expect(JSON.parse(opened.conversation.request().json)).toEqual({
      model: 'claude',
      max_tokens: 1024,
      system: 'be brief',
      thinking: { type: 'enabled' },
      messages: [user],
      tools: [{ name: 'repo_read', input_schema: { type: 'object' } }, theirs, server],
      stream: false,
    });
    expect([...opened.clientTools]).toEqual(['get_location', 'web_search']);
    expect(opened.approvalTool).toBe('approve_tool_call');
    expect(
      JSON.parse(messagesWire.open({ messages: [user], stream: true }, loopSetup([])).conversation.request().json),
    ).toEqual({ messages: [user], stream: true });
  });
});
