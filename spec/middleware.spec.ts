import request from 'supertest';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { buildGateway } from './helpers/gateway';
import { bindings, body, clockScript, trellis } from './helpers/clock-app';
import { memoryLogger } from './helpers/memory-logger';

describe('agentLoop as middleware', () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer(clockScript);
  });
  afterEach(() => model.close());

  it('makes every turn a self-call through the front door, marked so that injectors skip it, never forwarding the marker', async () => {
    const { app, seen } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app)
      .post('/v1/chat/completions')
      .set('authorization', 'Bearer user-key')
      .send(body)
      .expect(200);
    expect(res.body.choices[0].message.content).toBe('It is 08:00 UTC.');
    expect(seen).toEqual([
      { marker: false, internal: false },
      { marker: true, internal: true },
      { marker: true, internal: true },
    ]);
    expect(model.requests).toHaveLength(2);
    for (const turn of model.requests) {
      expect(turn.headers['x-mcp-internal']).toBeUndefined();
      expect(turn.headers.authorization).toBe('Bearer user-key');
      expect(turn.headers['accept-encoding']).toBe('identity');
    }
  });

  it('falls through with the original request untouched when the first self-call fails', async () => {
    model.setScript((sent) => (sent.tools ? { status: 503 } : { content: 'plain answer' }));
    const { app } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app).post('/v1/chat/completions').send(body).expect(200);
    expect(res.body.choices[0].message.content).toBe('plain answer');
    expect(res.headers['x-agent-loop-turns']).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1].body).toEqual(body);
  });

  it('returns the last answer with a note when a later turn fails', async () => {
    model.setScript((sent) =>
      sent.messages.length > 1
        ? { status: 500 }
        : { content: 'Checking the clock.', toolCalls: [{ name: 'clock_now' }] },
    );
    const { app } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app).post('/v1/chat/completions').send(body).expect(200);
    expect(res.headers['x-agent-loop-stop']).toBe('upstream_error');
    expect(res.body.choices[0].message.content).toBe(
      'Checking the clock.\n\n[agent-loop] Stopped before a final answer: the model call of turn 2 failed (HTTP 500: scripted failure 500).',
    );
  });

  it('passes a body that is not JSON on without a 500', async () => {
    const { app } = buildGateway(model.url, { trellis, bindings });
    const res = await request(app)
      .post('/v1/chat/completions')
      .set('content-type', 'application/json')
      .send('{"model":');
    expect(res.status).toBe(400);
  });

  it('logs one line per turn and per tool call with the loop id, binding, durations and outcome', async () => {
    const { logger, lines } = memoryLogger('info');
    const { app } = buildGateway(model.url, { trellis, bindings, logger });
    await request(app).post('/v1/chat/completions').send(body).expect(200);
    const turns = lines.filter((line) => line.message === 'agent-loop turn');
    const calls = lines.filter((line) => line.message === 'agent-loop tool call');
    expect(turns).toEqual([
      expect.objectContaining({
        binding: 'clock',
        turn: 1,
        toolCalls: 1,
        durationMs: expect.any(Number),
        loopId: expect.stringMatching(/^[0-9a-f]{16}$/),
      }),
      expect.objectContaining({ binding: 'clock', turn: 2, toolCalls: 0 }),
    ]);
    expect(calls).toEqual([
      expect.objectContaining({
        binding: 'clock',
        turn: 1,
        tool: 'clock_now',
        outcome: 'ok',
        durationMs: expect.any(Number),
        loopId: turns[0].loopId,
      }),
    ]);
  });

  it('writes nothing per turn when info is off', async () => {
    const { logger, lines } = memoryLogger('warn');
    const { app } = buildGateway(model.url, { trellis, bindings, logger });
    await request(app).post('/v1/chat/completions').send(body).expect(200);
    expect(lines).toEqual([]);
  });
});
