import http from 'node:http';
import { readBody, sendJson } from '../../lib/testing/http';
import { onLoopback } from '../../lib/testing/loopback';

describe("the scripted servers' HTTP", () => {
  it('reads a body sent in parts whole, and answers JSON, a value or text as it is', async () => {
    const server = http.createServer(async (req, res) => {
      const text = await readBody(req);
      if (req.url === '/raw') sendJson(res, 201, text);
      else sendJson(res, 200, { got: text });
    });
    const { origin, close } = await onLoopback(server);
    try {
      const bytes = new TextEncoder().encode('{"a": "é"}');
      // the two bytes of é in two parts
      const parts = new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice(0, 8));
          controller.enqueue(bytes.slice(8));
          controller.close();
        },
      });
      const json = await fetch(`${origin}/`, { method: 'POST', body: parts, duplex: 'half' } as RequestInit);
      expect([json.status, json.headers.get('content-type'), await json.json()]).toEqual([
        200,
        'application/json',
        { got: '{"a": "é"}' },
      ]);
      const raw = await fetch(`${origin}/raw`, { method: 'POST', body: 'not json' });
      expect([raw.status, await raw.text()]).toEqual([201, 'not json']);
    } finally {
      await close();
    }
  });
});
