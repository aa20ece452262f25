import express from 'express';
import { StreamReply } from '../../../lib/wire/gemini/reply';
import { listen } from '../../helpers/listen';

describe('a streamed Gemini reply', () => {
  it('sends the note, the handed-back calls, the finishReason and the summed usage in the last chunk', async () => {
    const app = express();
    app.get('/', (_req, res) => {
      const reply = new StreamReply(
        res,
        { responseId: 'loop_1', model: 'g' },
        { usage: { promptTokenCount: 4, totalTokenCount: 6 } },
        { keepAliveSec: 60, signal: new AbortController().signal },
      );
      expect(reply.committed).toBe(false);
      void reply.text('Done.');
      reply.toolsRunning();
      reply.toolProgress();
      reply.send({ stop: 'max_turns', text: 'Done.', note: '[note]' });
      reply.dispose();
    });
    const { url, close } = await listen(app);
    try {
      const events = (await (await fetch(url)).text())
        .split('\r\n\r\n')
        .filter((event) => event.startsWith('data: '))
        .map((event) => JSON.parse(event.slice(6)));
      expect(events.at(-1)).toEqual({
        candidates: [{ content: { role: 'model', parts: [{ text: '\n\n[note]' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 4, totalTokenCount: 6 },
        modelVersion: 'g',
        responseId: 'loop_1',
      });
    } finally {
      await close();
    }
  });
});
