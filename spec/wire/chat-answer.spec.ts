import type { Answer } from '../../lib/loop/reply';
import type { ChatCompletion } from '../../lib/types';
import { finalCompletion } from '../../lib/wire/chat-answer';

const identity = { id: 'chatcmpl-loop', created: 1700000000, model: 'agent-1' };

describe('the chat completion the client gets', () => {
  it("takes the loop's id, created and model where the last reply leaves them out or gives another type, and is always a chat.completion", () => {
    const reply = { object: null, created: 'yesterday', model: 7, choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }] } as unknown as ChatCompletion;
    const answer: Answer = { stop: 'final', text: 'Done.', last: { text: 'Done.', calls: [], output: reply.choices[0].message, stop: 'stop', id: '', model: '', reply } };
    expect(finalCompletion(answer, identity)).toEqual({ ...identity, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }] });
  });
});
