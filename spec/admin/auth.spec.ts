import express from 'express';
import request from 'supertest';
import { bearerAuth } from '../../lib/admin/auth';
import { memoryLogger } from '../helpers/memory-logger';

const KEY = 'auth-spec-admin-key-0123456789';
const REFUSED = 'agent-loop admin API refused a request: no or wrong admin key';

function guarded() {
  const { logger, lines } = memoryLogger();
  const app = express();
  app.use('/admin', bearerAuth(KEY, logger), (_req, res) => void res.json({ ok: true }));
  return { app, lines };
}

describe('bearerAuth', () => {
  it.each([`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER   ${KEY}  `])('lets %j through', async (authorization) => {
    const { app, lines } = guarded();
    const answer = await request(app).get('/admin/api/settings').set('authorization', authorization);
    expect([answer.status, answer.body]).toEqual([200, { ok: true }]);
    expect(lines).toEqual([]);
  });

  it.each<[string, Record<string, string>, string]>([
    ['no header', {}, 'admin API: no admin key given; send Authorization: Bearer <admin key>'],
    [
      'the key without Bearer',
      { authorization: KEY },
      'admin API: no admin key given; send Authorization: Bearer <admin key>',
    ],
    [
      'Basic credentials',
      { authorization: `Basic ${Buffer.from(`admin:${KEY}`).toString('base64')}` },
      'admin API: no admin key given; send Authorization: Bearer <admin key>',
    ],
    ['a wrong key', { authorization: `Bearer ${KEY}x` }, 'admin API: incorrect admin key provided'],
    [
      'a key that is the start of the right one',
      { authorization: `Bearer ${KEY.slice(0, 10)}` },
      'admin API: incorrect admin key provided',
    ],
  ])("refuses %s with a 401 in OpenAI's error shape, logging it without the key", async (_name, headers, message) => {
    const { app, lines } = guarded();
    const answer = await request(app).patch('/admin/api/settings?x=1').set(headers).send({});
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="agent-loop admin"');
    expect(answer.body).toEqual({
      error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    expect(lines).toEqual([
      { level: 'warn', message: REFUSED, ip: expect.any(String), method: 'PATCH', path: '/admin/api/settings?x=1' },
    ]);
    expect(JSON.stringify(lines)).not.toContain(KEY.slice(0, 10));
  });
});
