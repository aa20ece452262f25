import { WIRES, wireFor } from '../../lib/wire/wires';

describe('wireFor: the wire of a front door, by the end of its path', () => {
  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/openai/deployments/gpt/chat/completions', 'chat'],
    ['/v1/responses', 'responses'],
    ['/v1/messages', 'messages'],
    ['/anthropic/v1/messages', 'messages'],
  ])('%s is %s', (path, wire) => {
    expect(wireFor(path)?.name).toBe(wire);
  });

  it('serves no other path, and knows the three wires', () => {
    expect(wireFor('/v1/embeddings')).toBeUndefined();
    expect(wireFor('/v1/messages/count_tokens')).toBeUndefined();
    expect(WIRES.map((wire) => wire.name)).toEqual(['chat', 'responses', 'messages']);
  });
});
