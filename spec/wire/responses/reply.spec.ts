import { JsonReply } from '../../../lib/wire/responses/reply';
import { servedReply } from '../../helpers/served-reply';
import { responseIdentity as identity } from '../../helpers/response-identity';

const ignore = (): undefined => undefined;
const stats = { turns: 2, toolCalls: 1, blocked: 0, repeated: 0, elided: 0 };
describe('the Responses answer to the client', () => {
  it('a stream: false client gets one Response with the loop headers at the end', async () => {
    const res = await servedReply(
      (r) => new JsonReply(r, identity, false, ignore),
      (reply) => reply.send({ stop: 'final', text: 'Done.' }, stats),
    );
    expect(JSON.parse(res.body as string)).toEqual({
      id: 'resp_loop',
      object: 'response',
      created_at: 1700000000,
      model: 'agent',
      previous_response_id: null,
      status: 'completed',
      error: null,
      output: [
        {
          id: 'msg_resp_loop',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
        },
      ],
      usage: null,
    });
    expect([res.headers['x-agent-loop-turns'], res.headers['x-agent-loop-stop']]).toEqual(['2', 'final']);
  });
});
