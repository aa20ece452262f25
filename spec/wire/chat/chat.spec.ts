import { chatWire } from '../../../lib/wire/chat/chat';
import { chatTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };
const sent = (body: Record<string, unknown>, setup = loopSetup([chatTool('repo_read')])) =>
  JSON.parse(chatWire.open(body, setup).conversation.request().json);

describe('the chat completions wire', () => {
  it.each([
    [{ messages: [user] }, true],
    [{ messages: [user], n: 1 }, true],
    [{ messages: [user], n: null }, true],
    [{ messages: [user], n: 2 }, false],
    [{ messages: [] }, false],
    [{ messages: [{ content: 'no role' }] }, false],
    [{ prompt: 'hi' }, false],
    [[user], false],
  ])('serves %j: %s', (body, served) => {
    expect(chatWire.accepts(body)).toBe(served);
  });

  it("asks every turn with the binding's tools before the client's own, never the approval tool; none at all: no tools key", () => {
    const theirs = { type: 'function', function: { name: 'get_location' } };
    const approve = { type: 'function', function: { name: 'approve_tool_call' } };
    const dupe = { type: 'function', function: { name: 'repo_read', description: 'the client’s copy' } };
    const opened = chatWire.open(
      { model: 'agent', messages: [user], tools: [theirs, approve, dupe] },
      loopSetup([chatTool('repo_read')]),
    );
    expect(JSON.parse(opened.conversation.request().json)).toEqual({
      model: 'agent',
      messages: [user],
      tools: [chatTool('repo_read'), theirs],
      stream: false,
    });
    expect([...opened.clientTools]).toEqual(['get_location']);
    expect(opened.approvalTool).toBe('approve_tool_call');
    expect(chatWire.open({ messages: [user] }, loopSetup([chatTool('x')])).approvalTool).toBeUndefined();
    expect(sent({ messages: [user] }, loopSetup([]))).toEqual({ messages: [user], stream: false });
  });

  it("streams a streaming client's turns, asking for usage only when a token budget counts it", () => {
    expect(sent({ messages: [user], stream: true, stream_options: { foo: 1 } }, loopSetup([]))).toEqual({
      messages: [user],
      stream: true,
      stream_options: { foo: 1 },
    });
    expect(
      sent({ messages: [user], stream: true, stream_options: { foo: 1 } }, loopSetup([], { countsTokens: true })),
    ).toEqual({ messages: [user], stream: true, stream_options: { foo: 1, include_usage: true } });
    expect(sent({ messages: [user], stream: true }, loopSetup([], { countsTokens: true })).stream_options).toEqual({
      include_usage: true,
    });
  });

  it("carries the model's message on with only the calls that run, then one tool message per call and the images in a user message", () => {
    const { conversation } = chatWire.open({ messages: [user] }, loopSetup([chatTool('shot')]));
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
