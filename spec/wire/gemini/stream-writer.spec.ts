import express from 'express';
import { StreamWriter } from '../../../lib/wire/gemini/stream-writer';
import { listen } from '../../helpers/listen';

describe('the Gemini stream writer', () => {
  it('writes text chunks, then one last chunk; a writer disposed mid-stream still ends well-formed', async () => {
    const app = express();
    app.get('/', (_req, res) => {
      const writer = new StreamWriter(
        res,
        { responseId: 'loop_1', model: 'g' },
        {
          keepAliveSec: 60,
          signal: new AbortController().signal,
        },
      );
      void writer.text('Hel');
      void writer.text('lo');
      writer.dispose();
      writer.dispose();
    });
    const { url, close } = await listen(app);
    try {
      const response = await fetch(url);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events = (await response.text())
        .split('\r\n\r\n')
        .filter(Boolean)
        .map((event) => JSON.parse(event.slice(6)));
      expect(events).toEqual([
        {
          candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }],
          modelVersion: 'g',
          responseId: 'loop_1',
        },
        {
          candidates: [{ content: { role: 'model', parts: [{ text: 'lo' }] }, index: 0 }],
          modelVersion: 'g',
          responseId: 'loop_1',
        },
        {
          candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }],
          modelVersion: 'g',
          responseId: 'loop_1',
        },
      ]);
    } finally {
      await close();
    }
  });
});
