import { Redis } from 'ioredis';
import { FleetLoops } from '../../lib/telemetry/fleet-loops';
import { MemoryStore } from '../../lib/store/memory-store';
import { RedisStore } from '../../lib/store/redis-store';
import { LoopRecorder } from '../../lib/telemetry/loop-records';
import { memoryLogger } from '../helpers/memory-logger';
import { startRedis, type RedisServer } from '../helpers/redis-server';
import { until } from '../helpers/store-contract';

describe('FleetLoops: the loop list of every replica', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('lists the loops running on every replica with its replica; one that stops drops out', async () => {
    const open = () =>
      new RedisStore(Redis, { url: redis.url, prefix: 'loops-spec:', logger: memoryLogger('error').logger });
    const [storeA, storeB] = [open(), open()];
    const [recordsA, recordsB] = [new LoopRecorder(false), new LoopRecorder(false)];
    const [a, b] = [new FleetLoops(storeA, 'a', recordsA, true), new FleetLoops(storeB, 'b', recordsB, true)];
    recordsA.start('loop-on-a', 'notes', 'agent-1');
    const onB = recordsB.start('loop-on-b', 'notes', 'agent-1');
    await until(async () => (await b.snapshot()).inFlight.length === 2, "b lists a's loop too");
    expect(
      (await b.snapshot()).inFlight
        .map(({ id, replica }) => ({ id, replica }))
        .sort((x, y) => x.id.localeCompare(y.id)),
    ).toEqual([
      { id: 'loop-on-a', replica: 'a' },
      { id: 'loop-on-b', replica: 'b' },
    ]);
    recordsB.ended(onB);
    expect((await b.snapshot()).recent).toEqual([expect.objectContaining({ id: 'loop-on-b', replica: 'b' })]);
    await a.close();
    expect((await b.snapshot()).inFlight).toEqual([]);
    await b.close();
    await Promise.all([storeA.close(), storeB.close()]);
  });

  it('never writes captured content to the store: the text, arguments and results stay in the replica that ran the loop', async () => {
    const prefix = 'loops-content-spec:';
    const store = new RedisStore(Redis, { url: redis.url, prefix, logger: memoryLogger('error').logger });
    const records = new LoopRecorder(true);
    const loops = new FleetLoops(store, 'a', records, true);
    const record = records.start('loop-with-content', 'notes', 'agent-1');
    const turnEnded = record.turn();
    const done = record.tool({ id: 'c1', name: 'notes_read', arguments: '{"path":"secret-arguments"}', index: 0 });
    done('ok', 'secret-result');
    record.tool({ id: 'c2', name: 'notes_read', arguments: '{"path":"running-arguments"}', index: 1 });
    turnEnded('ok', { text: 'secret-model-text', calls: [], output: {}, stop: 'stop', id: 'r', model: 'm', reply: {} });
    const raw = new Redis(redis.url);
    try {
      await until(async () => (await raw.get(`${prefix}loops:a`)) !== null, 'the beat wrote the loop list');
      const written = (await raw.get(`${prefix}loops:a`))!;
      expect(written).toContain('loop-with-content');
      expect(written).not.toMatch(/secret-arguments|secret-result|secret-model-text|running-arguments/);
      const [own] = (await loops.snapshot()).inFlight;
      expect(own.turns[0]).toEqual(expect.objectContaining({ content: 'secret-model-text' }));
      expect(own.turns[0].toolCalls[0]).toEqual(
        expect.objectContaining({ arguments: '{"path":"secret-arguments"}', result: 'secret-result' }),
      );
    } finally {
      raw.disconnect();
      await loops.close();
      await store.close();
    }
  });

  it('without a store, lists this replica’s loops', async () => {
    const records = new LoopRecorder(false);
    const loops = new FleetLoops(new MemoryStore(), 'solo', records, false);
    records.start('x', 'notes', 'agent-1');
    expect((await loops.snapshot()).inFlight).toEqual([expect.objectContaining({ id: 'x', replica: 'solo' })]);
    await loops.close();
  });
});
