import type { Request } from 'express';
import { openAiApi } from '../../../lib/wire/kit/openai-api';

describe("OpenAI's API, as its two wires share it", () => {
  it("refuses a spent key budget in OpenAI's error shape", () => {
    expect(openAiApi.rateLimited('spent')).toEqual({
      error: { message: 'spent', type: 'tokens', param: null, code: 'rate_limit_exceeded' },
    });
  });

  it("answers an error in OpenAI's shape, naming the field at fault and a code when there are", () => {
    expect(openAiApi.error(400, 'bad', { param: 'tools', code: 'invalid_type' })).toEqual({
      error: { message: 'bad', type: 'invalid_request_error', param: 'tools', code: 'invalid_type' },
    });
    expect(openAiApi.error(502, 'down')).toEqual({
      error: { message: 'down', type: 'server_error', param: null, code: null },
    });
  });

  it("takes the key as a bearer token, the model from the body, and passes OpenAI's organization and project on", () => {
    expect(openAiApi.apiKey).toEqual({ header: 'authorization' });
    expect(openAiApi.modelOf({ model: 'gpt-4o' }, {} as Request)).toBe('gpt-4o');
    expect(openAiApi.upstreamHeaders).toEqual(['openai-organization', 'openai-project']);
  });
});
