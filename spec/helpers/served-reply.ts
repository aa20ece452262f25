import express, { type Response } from 'express';
import request from 'supertest';
import type { Reply } from '../../lib/loop/reply';

/** Serves one reply made by `make` on a real Express response, driven by `drive`; resolves with what the client got (the body as text). */
export async function servedReply(make: (res: Response) => Reply, drive: (reply: Reply) => void) {
  const app = express();
  app.post('/', (_req, res) => drive(make(res)));
  return request(app)
    .post('/')
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.on('data', (part: Buffer) => (text += part.toString()));
      res.on('end', () => done(null, text));
    });
}
