import http from 'node:http';
import { setStop, type Stop } from '../../lib/shared/stop';
import { onLoopback } from '../../lib/testing/loopback';

describe('the stop: why the loop answered as it did, in the x-agent-loop-stop header', () => {
  it.each<Stop>(['final', 'authorization', 'overloaded', 'key-budget', 'deferred-tools'])(
    'reaches the client as `x-agent-loop-stop: %s`',
    async (stop) => {
      const server = http.createServer((_req, res) => {
        setStop(res, stop);
        res.end('{}');
      });
      const { origin, close } = await onLoopback(server);
      try {
        const answer = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', body: '{}' });
        expect(answer.headers.get('x-agent-loop-stop')).toBe(stop);
        await answer.text();
      } finally {
        await close();
      }
    },
  );
});
