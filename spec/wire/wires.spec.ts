import { JUDGE_WIRE, WIRES, wireFor } from '../../lib/wire/wires';

describe('wireFor: the wire of a front door, by a route pattern matching the end of its path', () => {
  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/openai/deployments/gpt/chat/completions', 'chat'],
    ['/v1/responses', 'responses'],
    ['/v1/messages', 'messages'],
    ['/anthropic/v1/messages', 'messages'],
    ['/v1beta/models/gemini-2.5-flash:generateContent', 'gemini'],
    ['/v1/models/gemini-3-pro-preview:streamGenerateContent', 'gemini'],
    ['/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:generateContent', 'gemini'],
  ])('%s is %s', (path, wire) => {
    expect(wireFor(path)?.name).toBe(wire);
  });

  it('serves no other path, and knows the four wires', () => {
    expect(wireFor('/v1/embeddings')).toBeUndefined();
    expect(wireFor('/v1beta/models/gemini-2.5-flash:countTokens')).toBeUndefined();
    expect(wireFor('/v1beta/models/gemini-2.5-flash')).toBeUndefined();
    expect(wireFor('/v1beta/models/a/b:generateContent')).toBeUndefined();
    expect(wireFor('/v1/messages/count_tokens')).toBeUndefined();
    expect(WIRES.map((wire) => wire.name)).toEqual(['chat', 'responses', 'messages', 'gemini']);
  });

  it("declares each wire's front doors as route patterns, Gemini's two with the model a parameter", () => {
    expect(WIRES.flatMap((wire) => wire.routes.map((route) => `${wire.name} ${route.source}`))).toEqual([
      'chat /chat/completions',
      'responses /responses',
      'messages /messages',
      'gemini /models/{model}:generateContent',
      'gemini /models/{model}:streamGenerateContent',
    ]);
    expect(JUDGE_WIRE.path).toBe('/chat/completions');
  });
});
