import type { Request } from 'express';
import {
  asksForSse,
  declaredNames,
  geminiFunction,
  isStreamPath,
  modelInPath,
  withoutFunctions,
} from '../../../lib/wire/gemini/request';

describe('a Gemini request', () => {
  it('names its model and its form in the path, its stream format in the query', () => {
    expect(modelInPath('/v1beta/models/gemini-3-pro-preview:streamGenerateContent')).toBe('gemini-3-pro-preview');
    expect(modelInPath('/v1beta/models/gemini-3-pro-preview')).toBeUndefined();
    expect(isStreamPath('/v1/models/g:streamGenerateContent')).toBe(true);
    expect(isStreamPath('/v1/models/g:generateContent')).toBe(false);
    expect(asksForSse({ query: { alt: 'sse' } } as unknown as Request)).toBe(true);
    expect(asksForSse({ query: {} } as unknown as Request)).toBe(false);
  });

  it("reads the client's function names, and takes functions out of its tools, a tool left empty with them", () => {
    const tools = [
      { functionDeclarations: [{ name: 'a' }, { name: 'b' }, 'junk'] },
      { functionDeclarations: [{ name: 'c' }] },
      { googleSearch: {} },
    ];
    expect(declaredNames(tools)).toEqual(['a', 'b', 'c']);
    expect(withoutFunctions(tools, (name) => name === 'b' || name === 'c')).toEqual([
      { functionDeclarations: [{ name: 'a' }, 'junk'] },
      { googleSearch: {} },
    ]);
    expect(withoutFunctions(tools, () => false)).toEqual(tools);
  });

  it("offers a binding's tool with its JSON Schema whole in parametersJsonSchema, but for the dialect tag $schema", () => {
    const parameters = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { id: { $ref: '#/$defs/id' } },
      $defs: { id: { type: 'string' } },
    };
    const { $schema: _dialect, ...rest } = parameters;
    expect(geminiFunction({ name: 'read', description: 'Read', parameters })).toEqual({
      name: 'read',
      description: 'Read',
      parametersJsonSchema: rest,
    });
    expect(geminiFunction({ name: 'clock' })).toEqual({
      name: 'clock',
      parametersJsonSchema: { type: 'object' },
    });
  });
});
