import { finalMessage } from '../../lib/wire/messages-answer';
import { wellFormedMessage } from '../../lib/wire/messages-model-reply';
import { addMessagesUsage, totalTokens } from '../../lib/wire/messages-usage';
import type { AnthropicMessage } from '../../lib/wire/messages-types';

const identity = { id: 'msg_loop', model: 'claude-test' };

describe('the Messages JSON answer', () => {
  it('sums usage over the turns, cache fields once a turn reported them', () => {
    const one = addMessagesUsage(undefined, { input_tokens: 10, output_tokens: 2 });
    expect(one).toEqual({ input_tokens: 10, output_tokens: 2 });
    const two = addMessagesUsage(one, { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 8, cache_creation_input_tokens: null, service_tier: 'standard' });
    expect(two).toEqual({ input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 8 });
    expect(addMessagesUsage(two, undefined)).toBe(two);
    expect(totalTokens(two)).toBe(55);
  });

  it("is shaped like the last reply (id, model, unknown fields) with the loop's blocks, stop reason and usage", () => {
    const last = { id: 'msg_up', type: 'message' as const, role: 'assistant' as const, model: 'claude-up', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn', stop_sequence: null, container: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const content = [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }];
    expect(finalMessage(content, 'end_turn', { input_tokens: 9, output_tokens: 4 }, last, identity)).toEqual({ ...last, content, usage: { input_tokens: 9, output_tokens: 4 } });
    expect(finalMessage([], 'end_turn', undefined, undefined, identity)).toEqual({ id: 'msg_loop', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } });
    expect(finalMessage([], 'stop_sequence', undefined, { ...last, stop_sequence: '###' }, identity).stop_sequence).toBe('###');
  });

  it("takes the loop's id and model where the last reply's are missing or not strings, and is always an assistant Message", () => {
    const hostile = { id: 5, type: 'message', role: 'user', content: [], stop_reason: 'end_turn', stop_sequence: null } as unknown as AnthropicMessage;
    expect(finalMessage([], 'end_turn', undefined, hostile, identity)).toEqual({ id: 'msg_loop', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } });
  });

  it.each([
    [null, 'the reply is not a Message'],
    [{ type: 'message', content: 'text' }, 'the reply is not a Message'],
    [{ type: 'message', content: ['text'] }, "the reply's a content block is not a typed object"],
    [{ type: 'message', content: [{ type: 'tool_use', name: 'f', input: {} }] }, "the reply's a tool_use block has no string id or name"],
  ])('refuses a reply the loop cannot act on: %j', (reply, error) => {
    expect(() => wellFormedMessage(reply)).toThrow(error);
  });

  it('keeps every field of a well-formed reply', () => {
    const reply = { type: 'message', id: 'm', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'server_tool_use', id: 'srv', name: 'web_search', input: {} }], stop_details: null };
    expect(wellFormedMessage(reply)).toEqual(reply);
  });
});
