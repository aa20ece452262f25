import { answerParts, finalAnswer } from '../../../lib/wire/gemini/answer';
import type { Answer } from '../../../lib/loop/reply';
import type { TurnResult } from '../../../lib/loop/wire';

const last: TurnResult = {
  text: '',
  calls: [],
  output: {
    role: 'model',
    parts: [
      { text: 'Asking.' },
      { functionCall: { name: 'ask_user', args: { q: 'where?' } }, thoughtSignature: 'sig' },
    ],
  },
  stop: 'STOP',
  id: 'r1',
  model: 'gemini-2.5-flash',
  reply: {
    candidates: [{ finishReason: 'STOP', safetyRatings: [] }],
    modelVersion: 'gemini-2.5-flash-001',
    responseId: 'r1',
  },
};

describe("a Gemini loop's answer", () => {
  it("hands the client's calls back as the model sent them, the signature on its part, under the id to answer by", () => {
    const answer: Answer = {
      stop: 'final',
      text: 'Asking.',
      last,
      handBack: [{ id: 'call_1', name: 'ask_user', arguments: '{"q":"where?"}', index: 1 }],
    };
    expect(answerParts(answer)).toEqual({
      parts: [
        { text: 'Asking.' },
        { functionCall: { name: 'ask_user', args: { q: 'where?' }, id: 'call_1' }, thoughtSignature: 'sig' },
      ],
      finishReason: 'STOP',
    });
  });

  it('ends a budget with the text and the note, STOP; takes the last reply’s shape and the summed usage', () => {
    const answer: Answer = { stop: 'max_turns', text: 'Still.', note: '[note]', last };
    expect(
      finalAnswer(answer, { promptTokenCount: 3, totalTokenCount: 3 }, { responseId: 'loop_1', model: 'g' }),
    ).toEqual({
      candidates: [
        {
          finishReason: 'STOP',
          safetyRatings: [],
          content: { role: 'model', parts: [{ text: 'Still.\n\n[note]' }] },
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
      modelVersion: 'gemini-2.5-flash-001',
      responseId: 'r1',
    });
    expect(
      finalAnswer({ stop: 'authorization', text: '', note: 'sign in' }, undefined, {
        responseId: 'loop_1',
        model: 'g',
      }),
    ).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: 'sign in' }] }, finishReason: 'STOP', index: 0 }],
      modelVersion: 'g',
      responseId: 'loop_1',
    });
  });

  it('asks for approvals with functionCall parts of the approval tool', () => {
    const approvals = [
      { id: 'c.ap1.t', name: 'approve_tool_call', arguments: '{"tool":"rm","arguments":{},"reason":"r"}', index: 0 },
    ];
    expect(answerParts({ stop: 'final', text: '', approvals })).toEqual({
      parts: [
        {
          functionCall: { id: 'c.ap1.t', name: 'approve_tool_call', args: { tool: 'rm', arguments: {}, reason: 'r' } },
        },
      ],
      finishReason: 'STOP',
    });
  });
});
