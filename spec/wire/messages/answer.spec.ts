import { finalAnswer } from '../../../lib/wire/messages/answer';
import type { AnthropicMessage } from '../../../lib/wire/messages/types';

const identity = { id: 'msg_loop', model: 'claude-test' };

describe('the Messages JSON answer', () => {
  it("is shaped like the last reply (id, model, unknown fields) with the loop's blocks, stop reason and usage", () => {
    const last = {
      id: 'msg_up',
      type: 'message' as const,
      role: 'assistant' as const,
      model: 'claude-up',
      content: [{ type: 'text', text: 'x' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      container: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const content = [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ];
    expect(finalAnswer(content, 'end_turn', { input_tokens: 9, output_tokens: 4 }, last, identity)).toEqual({
      ...last,
      content,
      usage: { input_tokens: 9, output_tokens: 4 },
    });
    expect(finalAnswer([], 'end_turn', undefined, undefined, identity)).toEqual({
      id: 'msg_loop',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(finalAnswer([], 'stop_sequence', undefined, { ...last, stop_sequence: '###' }, identity).stop_sequence).toBe(
      '###',
    );
  });

  it("takes the loop's id and model where the last reply's are missing or not strings, and is always an assistant Message", () => {
    const hostile = {
      id: 5,
      type: 'message',
      role: 'user',
      content: [],
      stop_reason: 'end_turn',
      stop_sequence: null,
    } as unknown as AnthropicMessage;
    expect(finalAnswer([], 'end_turn', undefined, hostile, identity)).toEqual({
      id: 'msg_loop',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
  });
});
