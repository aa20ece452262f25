import express from 'express';
import request from 'supertest';
import { JsonReply } from '../../../lib/wire/chat/reply';

describe('JsonReply: a stream: false client gets one chat completion when the loop ends', () => {
  it('sends nothing before the end, then the completion with the loop headers', async () => {
    const app = express();
    app.post('/', (_req, res) => {
      const reply = new JsonReply(res, { id: 'chatcmpl-loop', created: 1700000000, model: 'agent-1' }, true);
      reply.text();
      reply.toolsRunning();
      expect([reply.streams, reply.committed, res.headersSent]).toEqual([false, false, false]);
      reply.send(
        { stop: 'final', text: 'Done.', usage: { input: 3, output: 1, total: 4 } },
        { turns: 2, toolCalls: 1, blocked: 1, repeated: 0, elided: 0 },
      );
      reply.dispose();
    });
    const res = await request(app).post('/').expect(200);
    expect(res.body).toEqual({
      id: 'chatcmpl-loop',
      created: 1700000000,
      model: 'agent-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    expect([
      res.headers['x-agent-loop-turns'],
      res.headers['x-agent-loop-tool-calls'],
      res.headers['x-agent-loop-blocked'],
      res.headers['x-agent-loop-stop'],
    ]).toEqual(['2', '1', '1', 'final']);
  });
});
