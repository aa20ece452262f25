import express from 'express';
import request from 'supertest';
import { neverDrop, notStarted } from '../../lib/middleware/fall-through';
import type { ActiveBinding } from '../../lib/loop/context';
import { chatWire } from '../../lib/wire/chat/chat';
import { memoryLogger } from '../helpers/memory-logger';

const binding = { name: 'clock' } as ActiveBinding;
const normalHandler: express.RequestHandler = (_req, res) => {
  if (!res.headersSent) res.json({ handledBy: 'normal' });
};

describe('the fall-through: a request the loop does not answer goes on to the normal handler', () => {
  it('passes a request the loop will not start on, with x-agent-loop-stop and a warning naming binding and wire', async () => {
    const { logger, lines } = memoryLogger('debug');
    const app = express().post(
      '/v1/chat/completions',
      (_req, res, next) =>
        notStarted({ telemetry: undefined, logger }, { res, next, binding, wire: chatWire }, 'overloaded', 'too many', {
          inFlight: 3,
        }),
      normalHandler,
    );
    const reply = await request(app).post('/v1/chat/completions').send({}).expect(200);
    expect(reply.headers['x-agent-loop-stop']).toBe('overloaded');
    expect(reply.body).toEqual({ handledBy: 'normal' });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'too many', binding: 'clock', wire: 'chat', inFlight: 3 }),
    );
  });

  it('never drops a request whose loop failed unexpectedly: the normal handler before a byte, the end after', async () => {
    const { logger, lines } = memoryLogger('debug');
    const failure = new Error('boom');
    const app = express()
      .post('/before', (_req, res, next) => neverDrop(logger, res, next, failure), normalHandler)
      .post('/after', (_req, res, next) => {
        res.type('text/plain').write('partial ');
        neverDrop(logger, res, next, failure);
      });
    expect((await request(app).post('/before').expect(200)).body).toEqual({ handledBy: 'normal' });
    expect((await request(app).post('/after')).text).toBe('partial ');
    expect(lines.filter((line) => line.level === 'error' && line.reason === 'boom')).toHaveLength(2);
  });
});
