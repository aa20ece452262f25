import type { Answer } from '../../../lib/loop/reply';
import { JsonReply, StreamReply, type Shown } from '../../../lib/wire/messages/reply';
import type { AnthropicMessage } from '../../../lib/wire/messages/types';
import type { TurnResult } from '../../../lib/loop/wire';
import { servedReply } from '../../helpers/served-reply';

const identity = { id: 'msg_loop', model: 'claude' };
const stats = { turns: 2, toolCalls: 1, blocked: 0, repeated: 0, elided: 0 };
const toolUse = { type: 'tool_use', id: 'toolu_loc', name: 'get_location', input: {} };
const last = (content: AnthropicMessage['content'], stop = 'tool_use'): TurnResult<AnthropicMessage> => {
  const message: AnthropicMessage = {
    id: 'msg_up',
    type: 'message',
    role: 'assistant',
    model: 'claude-up',
    content,
    stop_reason: stop,
    stop_sequence: null,
  };
  return { text: '', calls: [], output: message, stop, id: message.id, model: message.model, reply: message };
};

describe('the Messages answer to the client', () => {
  it("a stream: false client gets ONE Message: every turn's shown blocks, the client's calls under their carrying ids, stop_reason tool_use", async () => {
    const shown: Shown = {
      blocks: [
        { type: 'text', text: 'Looking.' },
        { type: 'text', text: 'Where are you?' },
      ],
      usage: { input_tokens: 9, output_tokens: 4 },
    };
    const answer: Answer = {
      stop: 'final',
      text: 'Looking.\n\nWhere are you?',
      last: last([{ type: 'text', text: 'Where are you?' }, toolUse]),
      handBack: [{ id: 'toolu_loc.al1.t', name: 'get_location', arguments: '{}', index: 1 }],
    };
    const res = await servedReply(
      (r) => new JsonReply(r, identity, shown, false),
      (reply) => reply.send(answer, stats),
    );
    expect(JSON.parse(res.body as string)).toEqual({
      id: 'msg_up',
      type: 'message',
      role: 'assistant',
      model: 'claude-up',
      content: [...shown.blocks, { ...toolUse, id: 'toolu_loc.al1.t' }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 4 },
    });
    expect(res.headers['x-agent-loop-stop']).toBe('final');
  });

  it("ends with the budget's note as its own text block, stop_reason end_turn, when a budget ended the loop", async () => {
    const shown: Shown = { blocks: [{ type: 'text', text: 'Partial.' }] };
    const note = '[agent-loop] Stopped before a final answer: the turn budget ran out (maxTurns = 1).';
    const res = await servedReply(
      (r) => new JsonReply(r, identity, shown, true),
      (reply) => reply.send({ stop: 'max_turns', text: 'Partial.', note, last: last([toolUse]) }, stats),
    );
    const body = JSON.parse(res.body as string);
    expect([body.content, body.stop_reason]).toEqual([
      [
        { type: 'text', text: 'Partial.' },
        { type: 'text', text: note },
      ],
      'end_turn',
    ]);
    expect(res.headers['x-agent-loop-blocked']).toBe('0');
  });

  it("a streaming client gets the loop's own text as a text block of its own, then the handed-back call and the stop reason", async () => {
    const answer: Answer = {
      stop: 'final',
      text: '',
      last: last([toolUse]),
      handBack: [{ id: 'toolu_loc.al1.t', name: 'get_location', arguments: '{}', index: 0 }],
    };
    const res = await servedReply(
      (r) => new StreamReply(r, identity, { blocks: [] }, { keepAliveSec: 15, signal: new AbortController().signal }),
      (reply) => {
        void reply.text('\n\nA note.');
        reply.send(answer, stats);
        reply.dispose();
      },
    );
    const events = (res.body as string)
      .split('\n\n')
      .filter((frame) => frame.includes('data: '))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)));
    expect(events.filter((event) => event.type === 'content_block_start').map((event) => event.content_block)).toEqual([
      { type: 'text', text: '' },
      { ...toolUse, id: 'toolu_loc.al1.t', input: {} },
    ]);
    expect(events.filter((event) => event.type === 'content_block_delta').map((event) => event.delta)).toContainEqual({
      type: 'text_delta',
      text: 'A note.',
    });
    expect(events.find((event) => event.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(events.at(-1).type).toBe('message_stop');
  });
});
