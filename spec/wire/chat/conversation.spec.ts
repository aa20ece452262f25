import { chatWire } from '../../../lib/wire/chat/chat';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };

describe('the chat completions conversation', () => {
  it("carries the model's message on with only the calls that run, then one tool message per call and the images in a user message", () => {
    const { conversation } = chatWire.open({ messages: [user] }, loopSetup([loopTool('shot')]));
    const output = {
      role: 'assistant',
      content: null,
      reasoning_content: 'r',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'shot', arguments: '{}' } },
        { id: 'b', type: 'function', function: { name: 'shot', arguments: '{}' } },
      ],
    };
    const kept = [{ id: 'a2', name: 'shot', arguments: '{}', index: 0 }];
    conversation.addOutput(
      { text: '', calls: [], output, stop: 'tool_calls', id: 'x', model: 'm', reply: {} } as never,
      kept,
    );
    conversation.addOutcomes(kept, [
      { kind: 'ok', text: 'a picture', images: [{ mimeType: 'image/png', data: 'AAAA' }] },
    ]);
    expect(conversation.items.slice(1)).toEqual([
      { ...output, tool_calls: [{ ...output.tool_calls[0], id: 'a2' }] },
      { role: 'tool', tool_call_id: 'a2', content: 'a picture' },
      {
        role: 'user',
        content: [
          { type: 'text', text: "Image returned by 'shot' (a2):" },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
    expect([...conversation.takenIds()]).toEqual(['a2']);
  });
});
