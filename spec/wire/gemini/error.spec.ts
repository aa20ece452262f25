import type { Request } from 'express';
import { googleError } from '../../../lib/wire/gemini/error';
import { geminiWire } from '../../../lib/wire/gemini/gemini';

describe("Google's error shape", () => {
  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [418, 'INTERNAL'],
  ])('names a %i %s', (code, status) => {
    expect(googleError(code, 'why')).toEqual({ error: { code, message: 'why', status } });
  });

  it("is the wire's error body, a field or code left out (Google's shape has neither)", () => {
    expect(geminiWire.error(400, 'bad tools', { param: 'tools', code: 'invalid_type' })).toEqual({
      error: { code: 400, message: 'bad tools', status: 'INVALID_ARGUMENT' },
    });
  });

  it('refuses a stream not asked for as server-sent events with the exact text', () => {
    const req = { path: '/v1beta/models/g:streamGenerateContent', query: {} } as unknown as Request;
    expect(geminiWire.refusal?.(req)).toEqual({
      error: {
        code: 400,
        message:
          'agent-loop streams :streamGenerateContent as server-sent events only: add ?alt=sse to the URL (the @google/genai SDK does), or call :generateContent for one JSON response.',
        status: 'INVALID_ARGUMENT',
      },
    });
  });
});
