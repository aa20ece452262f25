import type { Answer } from '../../../lib/loop/reply';
import { answerOutput, finalAnswer, messageItem, responseUsage } from '../../../lib/wire/responses/answer';
import type { ResponseItem } from '../../../lib/wire/responses/types';
import type { TurnResult } from '../../../lib/loop/wire';
import { responseIdentity as identity } from '../../helpers/response-identity';

const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
const search = { type: 'web_search_call', id: 'ws_1', status: 'completed' };
const own = {
  type: 'message',
  id: 'msg_up',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'Done.', annotations: [{ type: 'url_citation' }] }],
};
const theirs = { type: 'function_call', call_id: 'call_loc', name: 'get_location', arguments: '{}' };
const ours = { type: 'function_call', call_id: 'call_read', name: 'repo_read', arguments: '{}' };
const last = (output: ResponseItem[]): TurnResult<ResponseItem[]> => ({
  text: '',
  calls: [],
  output,
  stop: 'completed',
  id: 'resp_up',
  model: 'up',
  reply: { id: 'resp_up', object: 'response', status: 'completed', model: 'up', output, usage: { input_tokens: 1 } },
});

describe('the client’s Response', () => {
  it("keeps the model's own message whole when it alone says the answer, with what the upstream ran itself", () => {
    const answer: Answer = { stop: 'final', text: 'Done.', last: last([reasoning, search, own]) };
    expect(answerOutput(answer, identity, false)).toEqual([own, search]);
    expect(answerOutput(answer, identity, true)).toEqual([messageItem('msg_resp_loop', 'Done.'), search]);
  });

  it("writes one message of every turn's text otherwise, and only the text and note when a budget ended the loop", () => {
    expect(answerOutput({ stop: 'final', text: 'First.\n\nDone.', last: last([own]) }, identity, false)).toEqual([
      {
        id: 'msg_resp_loop',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'First.\n\nDone.', annotations: [] }],
      },
    ]);
    expect(
      answerOutput({ stop: 'max_turns', text: 'Partial.', note: 'note', last: last([ours, search]) }, identity, false),
    ).toEqual([messageItem('msg_resp_loop', 'Partial.\n\nnote')]);
    expect(answerOutput({ stop: 'final', text: '', last: last([search]) }, identity, false)).toEqual([search]);
  });

  it("hands back the client's call under the id carrying the loop's work, its reasoning beside it, never the loop's own calls", () => {
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: last([reasoning, ours, theirs]),
      handBack: [{ id: 'call_loc.al1.t', name: 'get_location', arguments: '{}', index: 2 }],
    };
    expect(answerOutput(answer, identity, false)).toEqual([reasoning, { ...theirs, call_id: 'call_loc.al1.t' }]);
  });

  it('is shaped like the last reply with the loop’s id (the one its stream names from the first event), usage summed; the loop’s identity when none lends its own', () => {
    const answer: Answer = {
      stop: 'final',
      text: 'Done.',
      last: last([own]),
      usage: { input: 4, output: 2, total: 6 },
    };
    expect(finalAnswer(answer, identity, [own])).toEqual({
      id: 'resp_loop',
      object: 'response',
      status: 'completed',
      model: 'up',
      previous_response_id: null,
      error: null,
      output: [own],
      usage: responseUsage({ input: 4, output: 2, total: 6 }),
    });
    expect(finalAnswer(undefined, identity, [])).toEqual({
      id: 'resp_loop',
      object: 'response',
      created_at: 1700000000,
      model: 'agent',
      previous_response_id: null,
      status: 'completed',
      error: null,
      output: [],
      usage: null,
    });
    expect(responseUsage({ input: 4, output: 2, total: 6 })).toEqual({
      input_tokens: 4,
      output_tokens: 2,
      total_tokens: 6,
    });
  });

  it("names the id the client chained on as previous_response_id, not the upstream's turn before the last", () => {
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: { ...last([]), reply: { id: 'resp_up', output: [], previous_response_id: 'resp_upstream_turn_1' } },
    };
    expect(finalAnswer(answer, { ...identity, previousResponseId: 'resp_client' }, []).previous_response_id).toBe(
      'resp_client',
    );
    expect(finalAnswer(answer, identity, []).previous_response_id).toBeNull();
  });

  it("echoes the client's own tools where the last reply echoed the request's, the binding's included", () => {
    const theirs = { type: 'function', name: 'get_location', parameters: { type: 'object' } };
    const reply = {
      id: 'resp_up',
      object: 'response',
      status: 'completed',
      model: 'up',
      output: [],
      tools: [{ type: 'function', name: 'notes_open' }, theirs],
    };
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: { text: '', calls: [], output: [], stop: 'completed', id: 'resp_up', model: 'up', reply },
    };
    expect(finalAnswer(answer, { ...identity, tools: [theirs] }, []).tools).toEqual([theirs]);
  });

  it("takes the loop's object, created_at, model and usage where the last reply's are missing or of another type", () => {
    const reply = {
      object: null,
      id: 5,
      created_at: 'now',
      model: null,
      status: 'completed',
      output: [],
      usage: 'lots',
    };
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: { text: '', calls: [], output: [], stop: 'completed', id: '', model: '', reply },
    };
    expect(finalAnswer(answer, identity, [])).toEqual({
      id: 'resp_loop',
      object: 'response',
      created_at: 1700000000,
      model: 'agent',
      previous_response_id: null,
      status: 'completed',
      error: null,
      output: [],
      usage: null,
    });
  });
});
