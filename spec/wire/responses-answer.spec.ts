import type { Answer } from '../../lib/loop/reply';
import { finalResponse } from '../../lib/wire/responses-answer';

const identity = { id: 'resp_loop', createdAt: 1700000000, model: 'agent', binding: 'notes' };

describe('the client’s Response', () => {
  it("takes the loop's object, id, created_at, model and usage where the last reply's are missing or of another type", () => {
    const reply = { object: null, id: 5, created_at: 'now', model: null, status: 'completed', output: [], usage: 'lots' };
    const answer: Answer = { stop: 'final', text: '', last: { text: '', calls: [], output: [], stop: 'completed', id: '', model: '', reply } };
    expect(finalResponse(answer, identity, [])).toEqual({ id: 'resp_loop', object: 'response', created_at: 1700000000, model: 'agent', status: 'completed', error: null, output: [], usage: null });
  });
});
