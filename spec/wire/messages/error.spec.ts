import { messagesError } from '../../../lib/wire/messages/error';
import { messagesWire } from '../../../lib/wire/messages/messages';

describe("the Messages API's error shape", () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [418, 'invalid_request_error'],
    [503, 'api_error'],
  ])('names a %i %s', (status, type) => {
    expect(messagesError(status, 'why')).toEqual({ type: 'error', error: { type, message: 'why' } });
  });

  it("is the wire's error body, a field or code left out (the API's shape has neither)", () => {
    expect(messagesWire.error(400, 'bad tools', { param: 'tools', code: 'invalid_type' })).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'bad tools' },
    });
  });
});
