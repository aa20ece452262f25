import type { Answer } from '../../../lib/loop/reply';
import type { ChatCompletion, ChatMessage } from '../../../lib/types';
import { chatAnswer, finalAnswer } from '../../../lib/wire/chat/answer';
import { chatUsage } from '../../../lib/loop/turn-result';
import type { TurnResult } from '../../../lib/loop/wire';

const identity = { id: 'chatcmpl-loop', created: 1700000000, model: 'agent-1' };
const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
function last(message: ChatMessage, stop = 'stop'): TurnResult<ChatMessage> {
  const reply = {
    id: 'chatcmpl-up',
    object: 'chat.completion',
    created: 1,
    model: 'up-model',
    system_fingerprint: 'fp',
    choices: [{ index: 0, message, finish_reason: stop, logprobs: null }],
  };
  return { text: '', calls: [], output: message, stop, id: reply.id, model: reply.model, reply };
}

describe('the chat completion the client gets', () => {
  it("is the model's last message whole with every turn's text, shaped like its reply, usage summed", () => {
    const answer: Answer = {
      stop: 'final',
      text: 'First.\n\nDone.',
      last: last({ role: 'assistant', content: 'Done.', reasoning_content: 'thought' } as ChatMessage),
      usage: { input: 7, output: 3, total: 10 },
    };
    expect(finalAnswer(answer, identity)).toEqual({
      id: 'chatcmpl-up',
      object: 'chat.completion',
      created: 1,
      model: 'up-model',
      system_fingerprint: 'fp',
      choices: [
        {
          index: 0,
          logprobs: null,
          message: { role: 'assistant', content: 'First.\n\nDone.', reasoning_content: 'thought' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
  });

  it('takes the loop’s identity when no reply lends its own, and the text and note alone when a budget ended it', () => {
    const answer: Answer = {
      stop: 'max_turns',
      text: 'Partial.',
      note: '[agent-loop] note',
      last: last({ role: 'assistant', content: null, tool_calls: [call('c1', 'f')] }, 'tool_calls'),
    };
    expect(chatAnswer(answer)).toEqual({
      message: { role: 'assistant', content: 'Partial.\n\n[agent-loop] note' },
      finishReason: 'stop',
    });
    expect(finalAnswer({ stop: 'deadline', text: '', note: 'n' }, identity)).toEqual({
      ...identity,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'n' }, finish_reason: 'stop' }],
    });
  });

  it("hands back only the client's own calls, under the ids that carry the loop's work", () => {
    const message: ChatMessage = {
      role: 'assistant',
      content: '',
      tool_calls: [call('c1', 'get_location'), call('c2', 'repo_read')],
    };
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: last(message, 'tool_calls'),
      handBack: [{ id: 'c1.al1.token', name: 'get_location', arguments: '{}', index: 0 }],
    };
    expect(chatAnswer(answer)).toEqual({
      message: { role: 'assistant', content: '', tool_calls: [{ ...call('c1', 'get_location'), id: 'c1.al1.token' }] },
      finishReason: 'tool_calls',
    });
  });

  it('asks the approval tool, with the text so far, when calls wait for a person', () => {
    const answer: Answer = {
      stop: 'final',
      text: '',
      approvals: [{ id: 'c9.ap1.t', name: 'approve_tool_call', arguments: '{"tool":"rm"}', index: 0 }],
    };
    expect(chatAnswer(answer)).toEqual({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c9.ap1.t', type: 'function', function: { name: 'approve_tool_call', arguments: '{"tool":"rm"}' } },
        ],
      },
      finishReason: 'tool_calls',
    });
    expect(chatUsage({ input: 1, output: 2, total: 3 })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });

  it("takes the loop's id, created and model where the last reply leaves them out or gives another type, and is always a chat.completion", () => {
    const reply = {
      object: null,
      created: 'yesterday',
      model: 7,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
    } as unknown as ChatCompletion;
    const answer: Answer = {
      stop: 'final',
      text: 'Done.',
      last: { text: 'Done.', calls: [], output: reply.choices[0].message, stop: 'stop', id: '', model: '', reply },
    };
    expect(finalAnswer(answer, identity)).toEqual({
      ...identity,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
    });
  });
});
