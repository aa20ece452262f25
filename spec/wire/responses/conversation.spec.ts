import { ResponsesConversation } from '../../../lib/wire/responses/conversation';
import type { ResponseItem } from '../../../lib/wire/responses/types';
import type { TurnResult, WireCall } from '../../../lib/loop/wire';
import type { LoopTool } from '../../../lib/loop/loop-tool';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const question = { type: 'message', role: 'user', content: 'read a and b' };
const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
const fc = (callId: string) => ({ type: 'function_call', call_id: callId, name: 'repo_read', arguments: '{}' });
const turn = (output: ResponseItem[]): TurnResult<ResponseItem[]> => ({
  text: '',
  calls: output.flatMap((item, index) =>
    item.type === 'function_call'
      ? [{ id: item.call_id as string, name: item.name as string, arguments: '{}', index }]
      : [],
  ),
  output,
  stop: 'completed',
  id: 'resp_1',
  model: 'm',
  reply: {},
});
const body = (conversation: ResponsesConversation) => JSON.parse(conversation.request().json);
const responsesShape = (tool: LoopTool) => ({ type: 'function', name: tool.name });

describe("the loop's Responses conversation", () => {
  it('carries the whole input on every turn: the output whole (reasoning too), only the calls that run, their answers with images', () => {
    const conversation = new ResponsesConversation(
      [question],
      { model: 'm', input: [question] },
      'whole',
      loopSetup([loopTool('repo_read')]),
      responsesShape,
    );
    expect(body(conversation)).toEqual({ model: 'm', input: [question] });
    const reply = turn([reasoning, fc('call_a'), fc('call_b')]);
    const kept: WireCall[] = [reply.calls[0]];
    conversation.addOutput(reply, kept);
    conversation.addOutcomes(kept, [
      { kind: 'ok', text: 'a says hi', images: [{ mimeType: 'image/png', data: 'AAAA' }] },
    ]);
    expect(body(conversation).input).toEqual([
      question,
      reasoning,
      fc('call_a'),
      {
        type: 'function_call_output',
        call_id: 'call_a',
        output: [
          { type: 'input_text', text: 'a says hi' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        ],
      },
    ]);
    expect([...conversation.takenIds()]).toEqual(['call_a']);
  });

  it('chained on previous_response_id, sends each later turn only the new items, and answers the calls it did not run', () => {
    const conversation = new ResponsesConversation(
      [question],
      { model: 'm', input: [question], previous_response_id: 'resp_0' },
      'previous_response_id',
      loopSetup([loopTool('repo_read')]),
      responsesShape,
    );
    expect(body(conversation)).toEqual({ model: 'm', input: [question], previous_response_id: 'resp_0' });
    const reply = turn([fc('call_a'), fc('call_b')]);
    conversation.addOutput(reply, [reply.calls[0]]);
    conversation.addOutcomes([reply.calls[0]], [{ kind: 'ok', text: 'a says hi' }]);
    expect(body(conversation)).toEqual({
      model: 'm',
      previous_response_id: 'resp_1',
      input: [
        {
          type: 'function_call_output',
          call_id: 'call_b',
          output:
            "tool error: 'repo_read' was not run: the turn asked for more tool calls than the loop runs in one turn",
        },
        { type: 'function_call_output', call_id: 'call_a', output: 'a says hi' },
      ],
    });
    expect(body(conversation).input).toEqual([]);
  });

  it('chained on a conversation, names no previous response', () => {
    const conversation = new ResponsesConversation(
      [question],
      { model: 'm', input: [question], conversation: 'conv_1' },
      'conversation',
      loopSetup([]),
      responsesShape,
    );
    conversation.request();
    const reply = turn([fc('call_a')]);
    conversation.addOutput(reply, reply.calls);
    conversation.addOutcomes(reply.calls, [{ kind: 'ok', text: 'hi' }]);
    expect(body(conversation)).toEqual({
      model: 'm',
      conversation: 'conv_1',
      input: [{ type: 'function_call_output', call_id: 'call_a', output: 'hi' }],
    });
  });
});
