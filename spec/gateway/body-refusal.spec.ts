import request from 'supertest';
import { createGateway } from '../../lib/gateway/gateway';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe('a body express.json() refused', () => {
  it.each([
    ['{"model":', 400, 'the request body is not valid JSON: Unexpected end of JSON input'],
    ['null', 400, 'the request body is JSON but not an object (null); send a JSON object'],
    [' "hi"', 400, 'the request body is JSON but not an object (a string); send a JSON object'],
    [
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(300) }] }),
      413,
      'request entity too large',
    ],
  ])(
    'answers a body express.json() refuses (%s) with a JSON error in the wire’s shape, no HTML and no stack',
    async (body, status, message) => {
      const app = createGateway({ upstream: { url: 'http://127.0.0.1:9/v1' }, bodyLimit: 200, logger: quiet });
      const res = await request(app)
        .post('/v1/chat/completions')
        .set('content-type', 'application/json')
        .send(body)
        .expect(status);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ error: { message, type: 'invalid_request_error', param: null, code: null } });
      const onMessages = await request(app)
        .post('/v1/messages')
        .set('content-type', 'application/json')
        .send(body)
        .expect(status);
      expect(onMessages.body).toEqual({
        type: 'error',
        error: { type: status === 413 ? 'request_too_large' : 'invalid_request_error', message },
      });
    },
  );
});
