import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import type { AgentLoopMiddleware } from '../../lib/middleware';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { listen, type Listening } from '../helpers/listen';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { eventually } from '../trellis/helpers';

const notes = localTrellis([
  { name: 'notes_open', description: 'Open the notebook', handler: () => 'notes: a' },
  { name: 'notes_read', description: 'Read a note', handler: () => 'a: buy milk' },
]);
const TURNS = 3;
/** 800 characters: the model server streams them 8 at a time, 100 deltas */
const LONG = 'buy milk'.repeat(100);

/** Every command a client sent Redis, by name, as MONITOR sees it (a script's own calls left out: no round trips). */
async function watch(redis: Redis): Promise<{ sent: string[]; stop(): void }> {
  const monitor = await redis.monitor();
  const sent: string[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') sent.push(args[0].toLowerCase());
  });
  return { sent, stop: () => monitor.disconnect() };
}

jest.setTimeout(60_000);

describe("the store's cost of a loop with keyBudget (a real redis-server counts the commands)", () => {
  let redis: RedisServer;
  let model: ModelServer;
  let gateway: Listening;
  let counter: Redis;
  let loop: AgentLoopMiddleware;
  beforeAll(async () => {
    [redis, model] = await Promise.all([
      startRedis(),
      startModelServer([
        { toolCalls: [{ name: 'notes_open' }] },
        { toolCalls: [{ name: 'notes_read' }] },
        { content: LONG },
      ]),
    ]);
    const built = buildGateway(model.url, {
      trellis: notes,
      bindings: [{ name: 'notes', match: { model: 'agent-*' }, hierarchy: ['notes_open', 'notes_read'] }],
      store: { url: redis.url },
      keyBudget: { tokens: 1_000_000, windowSec: 2678400 },
    });
    loop = built.loop;
    await eventually(async () => expect((await loop.ready()).store).toBeUndefined());
    gateway = await listen(built.app);
    counter = new Redis(redis.url);
  });
  afterAll(async () => {
    counter?.disconnect();
    await gateway?.close();
    // its store connections would retry the stopped Redis for ever, holding the worker open
    await loop?.close();
    await Promise.all([model?.close(), redis?.stop()]);
  });

  it('makes at most two round trips per turn and none per streamed delta: two for a loop of three turns', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
    const loop = () =>
      client.chat.completions.create({ model: 'agent-1', stream: true, messages: [{ role: 'user', content: 'go' }] });
    for await (const _ of await loop());
    const monitor = await watch(counter);

    let deltas = 0;
    for await (const chunk of await loop()) if (chunk.choices[0]?.delta.content) deltas++;
    await counter.ping();
    await eventually(() => expect(monitor.sent).toContain('ping'));
    monitor.stop();

    const sent = monitor.sent.filter((name) => name !== 'ping');
    expect(deltas).toBe(100);
    expect(sent.length).toBeLessThanOrEqual(2 * TURNS);
    // the budget check before the loop, and the loop's three turns sent in one increment at its end
    expect(sent).toEqual(['get', 'evalsha']);
  });
});
