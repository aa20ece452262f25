import { messagesWire } from '../../../lib/wire/messages/messages';
import { wireFor } from '../../../lib/wire/wires';
import { chatTool, loopSetup } from '../../helpers/loop-setup';

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
      loopSetup([chatTool('repo_read')]),
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

  it('reads a turn: its text, its tool_use blocks as calls by their place, the input tokens with the cached ones', () => {
    const { reader } = messagesWire.open({ messages: [user] }, loopSetup([]));
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'repo_read', input: { path: 'a' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 1 },
    };
    expect(reader.json(message)).toEqual({
      text: 'Reading.',
      calls: [{ id: 'toolu_1', name: 'repo_read', arguments: '{"path":"a"}', index: 2 }],
      output: message,
      usage: { input: 111, output: 5, total: 116 },
      stop: 'tool_use',
      id: 'msg_1',
      model: 'claude',
      reply: message,
    });
    expect(() => reader.json({ type: 'error' })).toThrow('the reply is not a Message');
  });
});
