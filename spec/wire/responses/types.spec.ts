import { callsOf, CLIENT_ACTION_NAMES, keptOutput, messageText, outputText } from '../../../lib/wire/responses/types';

const output = [
  { type: 'reasoning', id: 'rs_1', summary: [] },
  { type: 'function_call', call_id: 'call_a', name: 'repo_read', arguments: '{"path":"a"}' },
  {
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'output_text', text: 'Hel' },
      { type: 'refusal', refusal: 'no' },
      { type: 'output_text', text: 'lo' },
    ],
  },
  { type: 'computer_call', call_id: 'call_c', action: { type: 'click' } },
  { type: 'function_call', call_id: 'call_b', name: 'repo_grep', arguments: '{}' },
];

describe('Responses items as the loop reads them', () => {
  it('reads the calls by call_id with their place in the output; a client action is named by its type', () => {
    expect(callsOf(output)).toEqual([
      { id: 'call_a', name: 'repo_read', arguments: '{"path":"a"}', index: 1 },
      { id: 'call_c', name: '#computer_call', arguments: { type: 'click' }, index: 3 },
      { id: 'call_b', name: 'repo_grep', arguments: '{}', index: 4 },
    ]);
    expect(CLIENT_ACTION_NAMES).toContain('#mcp_approval_request');
  });

  it('reads the text of output_text parts and of an input message', () => {
    expect(outputText(output)).toBe('Hello');
    expect(messageText({ type: 'message', content: 'plain' })).toBe('plain');
    expect(messageText({ type: 'message', content: [{ type: 'input_text', text: 'in' }] })).toBe('in');
    expect(messageText({ type: 'message' })).toBe('');
  });

  it('carries every item on but only the calls that run, under the loop’s ids', () => {
    expect(keptOutput(output, [{ id: 'call_b2', name: 'repo_grep', arguments: '{}', index: 4 }])).toEqual([
      output[0],
      output[2],
      { type: 'function_call', call_id: 'call_b2', name: 'repo_grep', arguments: '{}' },
    ]);
    const same = keptOutput(output, [{ id: 'call_a', name: 'repo_read', arguments: '', index: 1 }]);
    expect(same[1]).toBe(output[1]);
  });
});
