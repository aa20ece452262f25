import { argumentsText, inputMessages, outputMessages } from '../../lib/telemetry/content';

const parsed = (messages: unknown[]) => JSON.parse(inputMessages(messages));

describe('gen_ai.input.messages', () => {
  it('reads chat messages: text, tool calls and tool results', () => {
    const chat = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what time' },
          { type: 'image_url', image_url: { url: 'data:,' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'clock_now', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '12:00' },
    ];
    expect(parsed(chat)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'be brief' }] },
      { role: 'user', parts: [{ type: 'text', content: 'what time' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'clock_now', arguments: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: '12:00' }] },
    ]);
  });

  it('reads Responses input items: messages, function calls and outputs, reasoning, other items by type', () => {
    const items = [
      { role: 'user', content: 'what time' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'in Paris' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'need the clock' }] },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAA' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'clock_now', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: '12:00' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed' },
    ];
    expect(parsed(items)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'what time' }] },
      { role: 'user', parts: [{ type: 'text', content: 'in Paris' }] },
      { role: 'assistant', parts: [{ type: 'reasoning', content: 'need the clock' }] },
      { role: 'assistant', parts: [{ type: 'reasoning' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'clock_now', arguments: '{}' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '12:00' }] },
      { role: 'assistant', parts: [{ type: 'web_search_call' }] },
    ]);
  });

  it('reads Anthropic Messages content blocks: thinking, tool_use and tool_result', () => {
    const messages = [
      { role: 'user', content: 'what time' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'need the clock', signature: 'sig' },
          { type: 'redacted_thinking', data: 'xyz' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'clock_now', input: { zone: 'UTC' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '12:00' }], is_error: false },
        ],
      },
    ];
    expect(parsed(messages)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'what time' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'need the clock' },
          { type: 'reasoning' },
          { type: 'text', content: 'Checking.' },
          { type: 'tool_call', id: 'toolu_1', name: 'clock_now', arguments: { zone: 'UTC' } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: '12:00' }] },
    ]);
  });

  it('does not throw on entries that are not objects', () => {
    expect(parsed([null, 'text', 3])).toEqual([{ parts: [] }, { parts: [] }, { parts: [] }]);
  });
});

describe('gen_ai.output.messages', () => {
  it('is the reply text and its calls, whatever the wire, with its stop reason', () => {
    const reply = {
      text: 'Checking.',
      calls: [{ id: 'toolu_1', name: 'clock_now', arguments: '{}', index: 0 }],
      output: [],
      stop: 'tool_use',
      id: 'msg_1',
      model: 'm',
      reply: {},
    };
    expect(JSON.parse(outputMessages(reply))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Checking.' },
          { type: 'tool_call', id: 'toolu_1', name: 'clock_now', arguments: '{}' },
        ],
        finish_reason: 'tool_use',
      },
    ]);
  });
});

describe('argumentsText: a call’s arguments as the span and the loop’s record show them', () => {
  it('is the model’s text as given, else the arguments serialised', () => {
    expect(argumentsText({ id: 'c1', name: 'notes_read', arguments: '{"id": "welcome"}', index: 0 })).toBe(
      '{"id": "welcome"}',
    );
    const call = { id: 'c2', name: '#computer_call', arguments: { action: 'click', x: 1 }, index: 1 };
    expect(argumentsText(call)).toBe('{"action":"click","x":1}');
    expect(argumentsText(call)).toBe('{"action":"click","x":1}');
    expect(argumentsText({ id: 'c3', name: 'clock_now', arguments: undefined, index: 0 })).toBeUndefined();
  });
});
