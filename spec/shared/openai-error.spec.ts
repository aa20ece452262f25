import express from 'express';
import request from 'supertest';
import { apiError } from '../../lib/shared/openai-error';

describe('apiError', () => {
  it("answers in OpenAI's error shape: a server_error at 500 and above, else an invalid_request_error", async () => {
    const app = express();
    app.get('/bad', (_req, res) => apiError(res, 400, "option 'maxTurns' is 0"));
    app.get('/down', (_req, res) => apiError(res, 503, 'reloading', 'reload_in_progress'));
    expect((await request(app).get('/bad')).body).toEqual({
      error: { message: "option 'maxTurns' is 0", type: 'invalid_request_error', param: null, code: null },
    });
    const down = await request(app).get('/down');
    expect([down.status, down.body]).toEqual([
      503,
      { error: { message: 'reloading', type: 'server_error', param: null, code: 'reload_in_progress' } },
    ]);
  });
});
