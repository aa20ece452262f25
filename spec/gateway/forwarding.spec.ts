import request from 'supertest';
import { createGateway } from '../../lib/gateway/gateway';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe("the gateway's proxy to the upstream", () => {
  it('answers /healthz and maps an unreachable upstream to a 502 JSON error', async () => {
    const app = createGateway({ upstream: { url: 'http://127.0.0.1:9/v1' }, logger: quiet });
    await request(app).get('/healthz').expect(200, { ok: true, down: {} });
    const res = await request(app)
      .post('/v1/chat/completions')
      .send({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .expect(502);
    expect(res.body.error.message).toMatch(/^upstream unreachable: /);
  });
});
