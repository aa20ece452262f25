import { chatWire } from '../../../lib/wire/chat/chat';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };
const sent = (body: Record<string, unknown>, setup = loopSetup([loopTool('repo_read')])) =>
  JSON.parse(chatWire.open(body, setup).conversation.request().json);

describe('the chat completions wire', () => {
  it("asks every turn with the binding's tools before the client's own, never the approval tool; none at all: no tools key", () => {
    const theirs = { type: 'function', function: { name: 'get_location' } };
    const approve = { type: 'function', function: { name: 'approve_tool_call' } };
    const dupe = { type: 'function', function: { name: 'repo_read', description: 'the client’s copy' } };
    const opened = chatWire.open(
      { model: 'agent', messages: [user], tools: [theirs, approve, dupe] },
      loopSetup([loopTool('repo_read')]),
    );
    expect(JSON.parse(opened.conversation.request().json)).toEqual({
      model: 'agent',
      messages: [user],
      tools: [{ type: 'function', function: { name: 'repo_read', parameters: { type: 'object' } } }, theirs],
      stream: false,
    });
    expect([...opened.clientTools]).toEqual(['get_location']);
    expect(opened.approvalTool).toBe('approve_tool_call');
    expect(chatWire.open({ messages: [user] }, loopSetup([loopTool('x')])).approvalTool).toBeUndefined();
    expect(sent({ messages: [user] }, loopSetup([]))).toEqual({ messages: [user], stream: false });
  });
});
