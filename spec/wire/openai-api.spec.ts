import type { Request } from 'express';
import { openAiApi } from '../../lib/wire/openai-api';

describe("OpenAI's API, as its two wires share it", () => {
  it("refuses a spent key budget in OpenAI's error shape", () => {
    expect(openAiApi.rateLimited('spent')).toEqual({
      error: { message: 'spent', type: 'tokens', param: null, code: 'rate_limit_exceeded' },
    });
  });

  it("takes the key as a bearer token, the model from the body, and passes OpenAI's organization and project on", () => {
    expect(openAiApi.apiKey).toEqual({ header: 'authorization' });
    expect(openAiApi.modelOf({ model: 'gpt-4o' }, {} as Request)).toBe('gpt-4o');
    expect(openAiApi.upstreamHeaders).toEqual(['openai-organization', 'openai-project']);
  });
});
