import { succeededIn } from '../../../lib/trellis/hierarchy';
import { MessagesConversation, historyOf } from '../../../lib/wire/messages/conversation';
import type { MessageParam } from '../../../lib/wire/messages/request';
import type { AnthropicMessage } from '../../../lib/wire/messages/types';

const reply: AnthropicMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [
    { type: 'thinking', thinking: 'two lookups', signature: 'Er9' },
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: 'toolu_a', name: 'a', input: { x: 1 } },
    { type: 'tool_use', id: 'toolu_b', name: 'b', input: {} },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
};
const turn = { text: 'Looking.', calls: [], output: reply, stop: 'tool_use', id: 'msg_1', model: 'm', reply };

describe('MessagesConversation', () => {
  const client: MessageParam[] = [{ role: 'user', content: 'go' }];

  it("keeps the model's blocks whole (thinking first), lists only the calls that run, and answers each in the next user message", () => {
    const conversation = new MessagesConversation(
      client,
      { model: 'm', max_tokens: 10, system: 'be brief' },
      (_own, _last, calls) => calls,
    );
    conversation.addOutput(turn, [{ id: 'toolu_a', name: 'a', arguments: '{"x":1}', index: 2 }]);
    conversation.addOutcomes(
      [{ id: 'toolu_a', name: 'a', arguments: '{"x":1}', index: 2 }],
      [{ kind: 'refused', tool: 'a', parent: 'p' }],
    );
    expect(JSON.parse(conversation.request().json)).toEqual({
      model: 'm',
      max_tokens: 10,
      system: 'be brief',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: reply.content.slice(0, 3) },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_a',
              content: "⛔ 'a' is locked: call 'p' first.",
              is_error: true,
            },
          ],
        },
      ],
    });
  });

  it('gives a repeated id the loop’s own, answers a success without is_error, and passes images as image blocks', () => {
    const conversation = new MessagesConversation(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'a', input: {} }] },
      ],
      {},
      (_o, _l, calls) => calls,
    );
    expect(conversation.takenIds()).toEqual(new Set(['toolu_a']));
    const kept = [
      { id: 'call_loop_1_0', name: 'a', arguments: '{}', index: 2 },
      { id: 'toolu_b', name: 'b', arguments: '{}', index: 3 },
    ];
    conversation.addOutput(turn, kept);
    conversation.addOutcomes(kept, [
      { kind: 'ok', text: 'fine', images: [{ mimeType: 'image/png', data: 'iVBOR' }] },
      { kind: 'timeout', tool: 'b', seconds: 5 },
    ]);
    const [assistant, results] = conversation.own;
    expect((assistant.content as { id?: string }[]).map((block) => block.id)).toEqual([
      undefined,
      undefined,
      'call_loop_1_0',
      'toolu_b',
    ]);
    expect(results.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'call_loop_1_0',
        content: [
          { type: 'text', text: 'fine' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        ],
      },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: "tool error: 'b' timed out after 5s", is_error: true },
    ]);
  });

  it('reads which tools ran well in the history: not an is_error result, not a failure text', () => {
    const history: MessageParam[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: '1', name: 'open' },
          { type: 'tool_use', id: '2', name: 'broken' },
          { type: 'tool_use', id: '3', name: 'gated' },
          { type: 'tool_use', id: '4', name: 'listed' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: '1', content: 'ok' },
          { type: 'tool_result', tool_use_id: '2', content: 'boom', is_error: true },
          { type: 'tool_result', tool_use_id: '3', content: [{ type: 'text', text: '⛔ locked' }] },
          { type: 'tool_result', tool_use_id: '4', content: [{ type: 'text', text: 'a, b' }] },
        ],
      },
    ];
    expect(succeededIn(historyOf(history))).toEqual(new Set(['open', 'listed']));
  });

  it('hands back through the carry it was given, with the model’s message restricted to the handed-back calls', () => {
    const carried: unknown[] = [];
    const conversation = new MessagesConversation(client, {}, (own, last, calls) => {
      carried.push(own, last);
      return calls.map((call) => ({ ...call, id: `${call.id}.al1.t` }));
    });
    const handed = conversation.handBack(turn, [{ id: 'toolu_b', name: 'b', arguments: '{}', index: 3 }]);
    expect(handed[0].id).toBe('toolu_b.al1.t');
    expect(carried).toEqual([
      [],
      { role: 'assistant', content: [reply.content[0], reply.content[1], reply.content[3]] },
    ]);
  });
});
