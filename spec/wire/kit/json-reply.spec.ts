import express from 'express';
import request from 'supertest';
import { JsonAnswerReply } from '../../../lib/wire/kit/json-reply';
import type { Answer } from '../../../lib/loop/reply';

/** A wire's JSON answer of the least shape: the text and the stop. */
class TextReply extends JsonAnswerReply {
  protected answerOf(answer: Answer): unknown {
    return { said: answer.text, stop: answer.stop };
  }
}

describe('JsonAnswerReply: a stream: false client of any wire gets its one answer when the loop ends', () => {
  it.each([
    [true, '0'],
    [false, undefined],
  ])('sends nothing before the end, then the answer with the loop headers (judged: %s)', async (judged, blocked) => {
    const app = express();
    app.post('/', (_req, res) => {
      const reply = new TextReply(res, judged);
      reply.text();
      reply.toolsRunning();
      expect([reply.streams, reply.committed, res.headersSent]).toEqual([false, false, false]);
      reply.send(
        { stop: 'max_turns', text: 'So far.' },
        { turns: 3, toolCalls: 2, blocked: 0, repeated: 1, elided: 0 },
      );
      reply.dispose();
    });
    const res = await request(app).post('/').expect(200);
    expect(res.body).toEqual({ said: 'So far.', stop: 'max_turns' });
    expect([
      res.headers['x-agent-loop-turns'],
      res.headers['x-agent-loop-tool-calls'],
      res.headers['x-agent-loop-repeated'],
      res.headers['x-agent-loop-stop'],
      res.headers['x-agent-loop-blocked'],
    ]).toEqual(['3', '2', '1', 'max_turns', blocked]);
  });
});
