import type { Answer } from '../../../lib/loop/reply';
import { StreamReply } from '../../../lib/wire/responses/stream-writer';
import { servedReply } from '../../helpers/served-reply';
import { responseIdentity as identity } from '../../helpers/response-identity';

const ignore = (): undefined => undefined;
const stats = { turns: 2, toolCalls: 1, blocked: 0, repeated: 0, elided: 0 };
const events = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: '))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Record<string, unknown>);

describe('the Responses answer to a streaming client', () => {
  it('a streaming client gets ONE lifecycle: created, the text as it arrives, one message, completed; sequence numbers running on', async () => {
    const answer: Answer = { stop: 'final', text: 'Hello' };
    const res = await servedReply(
      (r) => new StreamReply(r, identity, { keepAliveSec: 15, signal: new AbortController().signal }, ignore),
      (reply) => {
        expect(reply.committed).toBe(false);
        void reply.text('Hel');
        expect(reply.committed).toBe(true);
        void reply.text('lo');
        reply.send(answer, stats);
        reply.dispose();
      },
    );
    const got = events(res.body as string);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(got.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(got.map((event) => event.sequence_number)).toEqual(got.map((_event, i) => i));
    expect(got.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta)).toEqual([
      'Hel',
      'lo',
    ]);
    expect((res.body as string).split('\n\n').filter((frame) => frame.includes('output_text.delta'))).toEqual(
      ['Hel', 'lo'].map(
        (delta, i) =>
          `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_resp_loop', output_index: 0, content_index: 0, delta, logprobs: [], sequence_number: 4 + i })}`,
      ),
    );
    expect((got[9].response as { output: unknown[] }).output).toEqual([
      {
        id: 'msg_resp_loop',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
      },
    ]);
  });

  it("streams a hand-back's call as its own item, its arguments, then completed, every Response the loop's id; the upstream's id told apart", async () => {
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_loc', name: 'get_location', arguments: '{}' };
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: {
        text: '',
        calls: [],
        output: [call],
        stop: 'completed',
        id: 'resp_up',
        model: 'up',
        reply: { id: 'resp_up', status: 'completed' },
      },
      handBack: [{ id: 'call_loc.al1.t', name: 'get_location', arguments: '{}', index: 0 }],
    };
    const answered: string[] = [];
    const res = await servedReply(
      (r) =>
        new StreamReply(r, identity, { keepAliveSec: 15, signal: new AbortController().signal }, (id) => {
          answered.push(id);
          return undefined;
        }),
      (reply) => {
        void reply.beforeSend?.(answer);
        reply.send(answer, stats);
      },
    );
    const got = events(res.body as string);
    expect(got.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(got[5].item).toEqual({ ...call, call_id: 'call_loc.al1.t' });
    expect(got.flatMap((event) => (event.response ? [(event.response as { id: string }).id] : []))).toEqual([
      'resp_loop',
      'resp_loop',
      'resp_loop',
    ]);
    expect(answered).toEqual(['resp_up']);
  });

  it('a stream that opened ends well-formed, with the text so far, when the loop broke off', async () => {
    const res = await servedReply(
      (r) => new StreamReply(r, identity, { keepAliveSec: 15, signal: new AbortController().signal }, ignore),
      (reply) => {
        void reply.text('Partial');
        reply.dispose();
      },
    );
    const got = events(res.body as string);
    expect(got.at(-1)).toMatchObject({
      type: 'response.completed',
      response: {
        status: 'completed',
        output: [{ type: 'message', content: [{ type: 'output_text', text: 'Partial', annotations: [] }] }],
      },
    });
  });
});
