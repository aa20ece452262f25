import { chatWire } from '../../../lib/wire/chat/chat';
import { loopTool, loopSetup } from '../../helpers/loop-setup';

const user = { role: 'user', content: 'hi' };
const sent = (body: Record<string, unknown>, setup = loopSetup([loopTool('repo_read')])) =>
  JSON.parse(chatWire.open(body, setup).conversation.request().json);

describe("the chat completions wire's request", () => {
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
});
