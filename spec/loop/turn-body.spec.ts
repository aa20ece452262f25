import { TurnBody, turnRequest } from '../../lib/loop/turn-body';
import type { ChatMessage } from '../../lib/types';

/** A value whose serialisations are counted (JSON.stringify calls toJSON once per serialisation). */
function counted<T extends object>(value: T): T & { serialisations: number } {
  const tracked = { ...value, serialisations: 0 };
  Object.defineProperty(tracked, 'toJSON', { enumerable: false, value: () => (tracked.serialisations++, value) });
  return tracked;
}

describe('TurnBody', () => {
  const tool = counted({ type: 'function', function: { name: 'echo', parameters: { type: 'object' } } });
  const request = {
    model: 'demo',
    tools: [tool],
    temperature: 0,
    stream: false,
    messages: [{ role: 'user', content: 'the client message' }],
  };

  it("is every turn's request with the loop's messages, as JSON", () => {
    const body = new TurnBody(request);
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi "there"\n' }];
    const turns = [body.request(messages)];
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: 'c1', content: 'ünïcode ✓' });
    turns.push(body.request(messages));
    expect(turns.map((turn) => JSON.parse(turn.json))).toEqual([
      { ...JSON.parse(JSON.stringify(request)), messages: messages.slice(0, 1) },
      { ...JSON.parse(JSON.stringify(request)), messages },
    ]);
    expect(turns.map((turn) => turn.stream)).toEqual([false, false]);
  });

  it('appends to a list of the request, the earlier request byte for byte a prefix up to the new items', () => {
    const body = new TurnBody({ model: 'demo', tools: [{ name: 'a' }], stream: false, messages: [] });
    const before = body.request([]).json;
    body.appendTo('tools', [{ name: 'b' }]);
    const after = body.request([]).json;
    expect(JSON.parse(after).tools).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(after.startsWith(before.slice(0, before.indexOf(']')))).toBe(true);
    body.appendTo('extra', [1]);
    expect(JSON.parse(body.request([]).json).extra).toEqual([1]);
  });

  it('serialises the request once per loop and each message once, however many turns', () => {
    tool.serialisations = 0;
    const body = new TurnBody(request);
    const messages = [counted({ role: 'user', content: 'first' })] as unknown as ChatMessage[];
    body.request(messages);
    messages.push(counted({ role: 'assistant', content: 'second' }) as unknown as ChatMessage);
    body.request(messages);
    body.request(messages);
    expect(tool.serialisations).toBe(1);
    expect(messages.map((message) => (message as unknown as { serialisations: number }).serialisations)).toEqual([
      1, 1,
    ]);
  });

  it('serialises a replaced message again after rewind, and only the messages from there on', () => {
    const body = new TurnBody({ model: 'demo' });
    const messages = [
      counted({ role: 'user', content: 'a' }),
      counted({ role: 'tool', content: 'long' }),
      counted({ role: 'assistant', content: 'c' }),
    ] as unknown as ChatMessage[];
    body.request(messages);
    messages[1] = counted({ role: 'tool', content: 'short' }) as unknown as ChatMessage;
    body.rewind(1);
    body.rewind(5);
    expect(JSON.parse(body.request(messages).json)).toEqual({
      model: 'demo',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'tool', content: 'short' },
        { role: 'assistant', content: 'c' },
      ],
    });
    expect(messages.map((message) => (message as unknown as { serialisations: number }).serialisations)).toEqual([
      1, 1, 2,
    ]);
    body.rewind(0);
    expect(JSON.parse(body.request(messages).json).messages).toHaveLength(3);
  });

  it('makes valid JSON of a request with nothing but messages, and of a hole in them', () => {
    const messages = [undefined, { role: 'user', content: 'x' }] as unknown as ChatMessage[];
    const turn = new TurnBody({ stream: true }).request(messages);
    expect(JSON.parse(new TurnBody({}).request(messages).json)).toEqual({
      messages: [null, { role: 'user', content: 'x' }],
    });
    expect(turn.stream).toBe(true);
  });

  it('turnRequest serialises a whole body (the judge asks the model with one)', () => {
    expect(turnRequest({ model: 'judge', stream: true })).toEqual({
      json: '{"model":"judge","stream":true}',
      stream: true,
    });
  });
});
