import OpenAI from 'openai';
import { startResponsesServer, type ResponsesServer } from '../../fixtures/responses-server';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../trellis/helpers';

const notes = localTrellis([{ name: 'notes_open', description: 'Open the notebook', handler: () => 'notes: a, b' }]);
const options = (url: string) => ({
  trellis: notes,
  bindings: [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: ['notes_open'] }],
  internalSecret: 'fleet-internal-secret-0123456789abcdef',
  store: { url },
});

jest.setTimeout(60_000);

describe('a follow-up chained on an answer of another replica (Responses, two agentLoops on one Redis)', () => {
  let redis: RedisServer;
  let model: ResponsesServer;
  const gateways: Listening[] = [];
  const loops: AgentLoopMiddleware[] = [];
  const clients: OpenAI[] = [];
  beforeAll(async () => {
    [redis, model] = await Promise.all([startRedis(), startResponsesServer()]);
    for (let i = 0; i < 2; i++) {
      const { app, loop } = buildGateway(model.url, options(redis.url));
      await eventually(async () => expect((await loop.ready()).store).toBeUndefined());
      loops.push(loop);
      const gateway = await listen(app);
      gateways.push(gateway);
      clients.push(new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 }));
    }
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    // the loops' store connections would retry the stopped Redis for ever, holding the worker open
    await Promise.all(loops.map((loop) => loop.close()));
    await Promise.all([model.close(), redis.stop()]);
  });

  it.each([false, true])(
    "reaches the upstream's last reply of the loop from the other replica (stream: %s)",
    async (stream) => {
      model.setScript([
        { calls: [{ callId: 'n1', name: 'notes_open' }] },
        { text: 'Notes: a, b.' },
        { text: 'You asked about notes.' },
      ]);
      const before = model.requests.length;
      const [a, b] = clients;
      const first = stream
        ? await a.responses.stream({ model: 'agent-1', input: 'my notes?' }).finalResponse()
        : await a.responses.create({ model: 'agent-1', input: 'my notes?' });
      const followUp = await b.responses.create({
        model: 'agent-1',
        previous_response_id: first.id,
        input: 'what did I ask?',
      });

      expect(first.id).toMatch(/^resp_[0-9a-f]{16}$/);
      expect(followUp.output_text).toBe('You asked about notes.');
      expect(model.requests[before + 2].body.previous_response_id).toBe(model.replies.at(-2)!.id);
    },
  );
});
