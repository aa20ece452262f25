import { responsesReader } from '../../../lib/wire/responses/reader';

const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'repo_read', arguments: '{}' };
const message = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] };
describe('responsesReader: a turn’s Response, as the loop reads it', () => {
  it('reads the output whole, the calls by call_id, the usage (a total from input and output when none is given)', () => {
    const response = {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'm',
      output: [message, call],
      usage: { input_tokens: 3, output_tokens: 2 },
    };
    expect(responsesReader.json(response)).toEqual({
      text: 'Hi.',
      calls: [{ id: 'call_1', name: 'repo_read', arguments: '{}', index: 1 }],
      output: [message, call],
      usage: { input: 3, output: 2, total: 5 },
      stop: 'completed',
      id: 'resp_1',
      model: 'm',
      reply: response,
    });
  });

  it.each([
    [{ object: 'response' }, 'the reply is not a Response'],
    [{ status: 'failed', output: [], error: { message: 'quota' } }, 'the response failed: quota'],
  ])('fails on %j', (reply, error) => {
    expect(() => responsesReader.json(reply)).toThrow(error);
  });
});
