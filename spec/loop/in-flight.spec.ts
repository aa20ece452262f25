import request from 'supertest';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';
import { listen, type Listening } from '../helpers/listen';
import { eventually } from '../trellis/helpers';

const trellis = localTrellis([{ name: 'clock_now', handler: () => '2026-11-30T08:00:00Z' }]);
const bindings = [{ name: 'clock', match: { model: 'agent' }, hierarchy: 'clock_now' }];
const body = { model: 'agent', messages: [{ role: 'user' as const, content: 'what time is it?' }] };
const SHUTDOWN_NOTE = '[agent-loop] Stopped before a final answer: the gateway is shutting down.';

describe('loops in flight: maxConcurrentLoops and the drain of close()', () => {
  let model: ModelServer;
  let server: Listening | undefined;
  let release: () => void = () => undefined;
  /** A looped request's first turn waits for `release()`; a request without the loop's tools is answered at once. */
  const parkedFirstTurn: Script = (sent) => {
    if (!sent.tools) return { content: 'plain answer' };
    if (sent.messages.some((message) => message.role === 'tool')) return { content: 'It is 08:00 UTC.' };
    return new Promise((resolve) => (release = () => resolve({ toolCalls: [{ name: 'clock_now' }] })));
  };

  beforeEach(async () => {
    model = await startModelServer(parkedFirstTurn);
  });
  afterEach(async () => {
    release();
    await server?.close();
    server = undefined;
    await model.close();
  });

  async function gateway(options: Record<string, unknown>) {
    const { logger, lines } = memoryLogger('info');
    const built = buildGateway(model.url, { trellis, bindings, logger, ...options });
    server = await listen(built.app);
    return { ...built, lines, client: server.client };
  }

  it('passes a request past maxConcurrentLoops to the normal handler with x-agent-loop-stop: overloaded and one log line', async () => {
    const { client, lines } = await gateway({ maxConcurrentLoops: 1 });
    const first = client.chat.completions.create(body).withResponse();
    await eventually(() => expect(model.requests).toHaveLength(1));

    const { data, response } = await client.chat.completions.create(body).withResponse();
    expect(data.choices[0].message.content).toBe('plain answer');
    expect(response.headers.get('x-agent-loop-stop')).toBe('overloaded');
    expect(response.headers.get('x-agent-loop-turns')).toBeNull();
    expect(model.requests[1].body.tools).toBeUndefined();
    expect(
      lines.filter((line) => line.message === 'agent-loop overloaded; passing the request to the normal handler'),
    ).toEqual([expect.objectContaining({ level: 'warn', binding: 'clock', inFlight: 1, maxConcurrentLoops: 1 })]);

    release();
    const answered = await first;
    expect(answered.data.choices[0].message.content).toBe('It is 08:00 UTC.');
    expect(answered.response.headers.get('x-agent-loop-stop')).toBe('final');
    const again = client.chat.completions.create(body).withResponse();
    await eventually(() => expect(model.requests).toHaveLength(4));
    release();
    expect((await again).response.headers.get('x-agent-loop-turns')).toBe('2');
  });

  it('close() lets an in-flight loop finish, passing new requests on meanwhile, then resolves', async () => {
    const { app, client, loop, lines } = await gateway({});
    const first = client.chat.completions.create(body).withResponse();
    await eventually(() => expect(model.requests).toHaveLength(1));
    let closed = false;
    const closing = loop.close().then(() => (closed = true));

    const during = await request(app).post('/v1/chat/completions').send(body).expect(200);
    expect(during.body.choices[0].message.content).toBe('plain answer');
    expect(during.headers['x-agent-loop-stop']).toBe('shutdown');
    expect(closed).toBe(false);

    release();
    const { data, response } = await first;
    expect(data.choices[0].message.content).toBe('It is 08:00 UTC.');
    expect(response.headers.get('x-agent-loop-stop')).toBe('final');
    await closing;
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'agent-loop draining: waiting for in-flight loops',
        inFlight: 1,
        shutdownDrainSec: 10,
      }),
    );
    expect(
      lines.some((line) => line.message === 'agent-loop drain ran out; in-flight loops ended with the shutdown note'),
    ).toBe(false);
  });

  it('ends a loop still running when the drain runs out: HTTP 200, what it has plus the shutdown note', async () => {
    model.setScript((sent) =>
      sent.messages.some((message) => message.role === 'tool')
        ? new Promise(() => undefined)
        : { content: 'Checking the clock.', toolCalls: [{ name: 'clock_now' }] },
    );
    const { client, loop, lines } = await gateway({ shutdownDrainSec: 1 });
    const answering = client.chat.completions.create(body).withResponse();
    await eventually(() => expect(model.requests).toHaveLength(2));
    await loop.close();

    const { data, response } = await answering;
    expect(data.choices[0].message.content).toBe(`Checking the clock.\n\n${SHUTDOWN_NOTE}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-agent-loop-stop')).toBe('shutdown');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'agent-loop drain ran out; in-flight loops ended with the shutdown note',
        ended: 1,
      }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ message: 'agent-loop answered', stop: 'shutdown' }));
  });
});
