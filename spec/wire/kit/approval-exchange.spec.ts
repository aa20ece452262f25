import { parsedOrUndefined as parsedJson } from '../../../lib/shared/parsed-json';
import { answeredCall, askedCallId, asksPerson, shownCall, shownIn } from '../../../lib/wire/kit/approval-exchange';

describe('the shown call', () => {
  it('reads the `{ tool, arguments }` an approval showed from its JSON, anything else as nothing shown', () => {
    expect(shownIn('{"tool":"notes_delete","arguments":{"id":"g"}}')).toEqual({
      tool: 'notes_delete',
      arguments: { id: 'g' },
    });
    expect(shownIn('[1]')).toEqual({});
    expect(shownIn('not json')).toEqual({});
    expect(parsedJson(undefined)).toBeUndefined();
    expect(shownCall({ tool: 7, arguments: null })).toEqual({ tool: 'the call', arguments: {} });
  });

  it('tells the calls that ask the person by tool and id, and reads an answer as the approval and as written', () => {
    const tools = { approval: 'approve_tool_call', input: 'answer_tool_question' };
    expect(askedCallId('call_1.ap1.token')).toBe('call_1');
    expect(askedCallId('call_2.in1.token')).toBe('call_2');
    expect(askedCallId('call_3')).toBeUndefined();
    expect(asksPerson('approve_tool_call', 'call_1.ap1.token', tools)).toBe(true);
    expect(asksPerson('answer_tool_question', 'call_2.in1.token', tools)).toBe(true);
    expect(asksPerson('approve_tool_call', 'call_2.in1.token', tools)).toBe(false);
    expect(asksPerson('answer_tool_question', 'call_2.in1.token', { approval: 'approve_tool_call' })).toBe(false);
    const shown = { tool: 'notes_delete', arguments: { id: 'g' } };
    expect(answeredCall('call_1.ap1.token', shown, { content: ' {"approved":true} ' }, true)).toEqual({
      approvalId: 'call_1.ap1.token',
      shown,
      answer: { approved: true },
      given: { approved: true },
      live: true,
    });
    expect(answeredCall('call_1.ap1.token', shown, { content: 'not now' }, false)).toMatchObject({
      answer: { approved: false, reason: 'not now' },
      given: 'not now',
    });
    expect(answeredCall('call_1.ap1.token', shown, undefined, true)).toMatchObject({
      answer: undefined,
      given: undefined,
    });
  });
});
