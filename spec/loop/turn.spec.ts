import request from 'supertest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server';
import { localTrellis } from '../../lib/trellis/local';
import { buildGateway } from '../helpers/gateway';
import { memoryLogger } from '../helpers/memory-logger';

const trellis = localTrellis([
  { name: 'clock', handler: () => '12:00' },
  { name: 'broken', handler: () => Promise.reject(new Error('ECONNREFUSED')) },
]);
const bindings = [{ name: 'tools', match: { model: 'agent-*' }, hierarchy: ['clock', 'broken'] }];
const ask = { model: 'agent-1', messages: [{ role: 'user', content: 'go' }] };

describe("one turn's tool calls", () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(() => model.close());

  it('logs each call with its outcome when the logger is at info, and the calls over the cap it did not run', async () => {
    model.setScript([
      {
        toolCalls: [
          { id: 'c1', name: 'clock' },
          { id: 'c2', name: 'broken' },
          { id: 'c3', name: 'clock' },
        ],
      },
      { content: 'Done.' },
    ]);
    const { logger, lines } = memoryLogger('info');
    const res = await request(buildGateway(model.url, { trellis, bindings, logger, maxToolCallsPerTurn: 2 }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);
    const loopId = res.headers['x-agent-loop-id'];

    expect(
      lines
        .filter((line) => line.message === 'agent-loop tool call')
        .map(({ durationMs, ...line }) => [typeof durationMs, line])
        .sort((a, b) => String((a[1] as { tool: string }).tool).localeCompare(String((b[1] as { tool: string }).tool))),
    ).toEqual([
      [
        'number',
        {
          level: 'info',
          message: 'agent-loop tool call',
          loopId,
          binding: 'tools',
          wire: 'chat',
          turn: 1,
          tool: 'broken',
          outcome: 'transport',
        },
      ],
      [
        'number',
        {
          level: 'info',
          message: 'agent-loop tool call',
          loopId,
          binding: 'tools',
          wire: 'chat',
          turn: 1,
          tool: 'clock',
          outcome: 'ok',
        },
      ],
    ]);
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'agent-loop tool calls over the per-turn cap were not run',
      loopId,
      binding: 'tools',
      wire: 'chat',
      turn: 1,
      cap: 2,
      dropped: ['clock'],
    });
    expect(res.headers['x-agent-loop-tool-calls']).toBe('2');
  });

  it('logs no call at warn', async () => {
    model.setScript([{ toolCalls: [{ id: 'c1', name: 'clock' }] }, { content: 'Done.' }]);
    const { logger, lines } = memoryLogger('warn');
    await request(buildGateway(model.url, { trellis, bindings, logger }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);
    expect(lines.filter((line) => line.message === 'agent-loop tool call')).toEqual([]);
  });

  it("gives a call with an id the conversation already used an id in the model's own form (Mistral: 9 letters and digits)", async () => {
    model.setScript([
      { toolCalls: [{ id: 'D681PevKs', name: 'clock' }] },
      {
        toolCalls: [
          { id: 'D681PevKs', name: 'clock' },
          { id: 'D681PevKs', name: 'clock' },
        ],
      },
      { content: 'Done.' },
    ]);
    await request(buildGateway(model.url, { trellis, bindings }).app)
      .post('/v1/chat/completions')
      .send(ask)
      .expect(200);
    const ids = model.requests[2].body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(ids[0]).toBe('D681PevKs');
    expect(ids.slice(1).every((id) => /^[A-Za-z0-9]{9}$/.test(id as string))).toBe(true);
    expect(new Set(ids).size).toBe(3);
  });
});
