import type { Request } from 'express';
import { Registry } from 'prom-client';
import { LoopRecorder } from '../../lib/telemetry/loop-records';
import { Telemetry } from '../../lib/telemetry/loop-telemetry';
import type { TurnResult, WireCall } from '../../lib/loop/turn-result';

const req = { headers: {} } as Request;
const reply: TurnResult = {
  text: '',
  calls: [],
  output: {},
  usage: { input: 12, output: 5, total: 17 },
  stop: 'tool_calls',
  id: 'chatcmpl-1',
  model: 'agent-1',
  reply: {},
};
const call: WireCall = { id: 'call_1', name: 'notes_read', arguments: '{}', index: 0 };

/** The value of one series of the registry's text exposition, e.g. `agent_loop_loops_total{binding="notes",wire="chat",stop="final"}`. */
async function series(registry: Registry, line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split('\n').find((text) => text.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('Telemetry', () => {
  it('is not there when neither tracing nor metrics are on, and then no loop has telemetry', () => {
    expect(Telemetry.create({ telemetry: { tracing: false }, metrics: false })).toBeUndefined();
  });

  it('counts a loop, its turns, its tool calls, its approvals and its tokens in the registry given', async () => {
    const registry = new Registry();
    const telemetry = Telemetry.create({ telemetry: { tracing: false }, metrics: { registry } })!;
    const loop = telemetry.loop(req, 'notes', 'agent-1', 'loop-1', 'chat')!;
    expect(await series(registry, 'agent_loop_loops_in_flight{binding="notes",wire="chat"}')).toBe(1);
    loop.turn([]).succeeded(reply);
    loop.tool(call, true).ended({ kind: 'ok', text: 'milk' });
    loop
      .tool({ ...call, name: 'made_up' }, false)
      .ended({ kind: 'unknown_tool', text: "tool error: unknown tool 'made_up'" });
    loop.approval('notes_read', 'asked');
    loop.ended('final', { turns: 1, toolCalls: 2 }, reply.usage);
    expect(await series(registry, 'agent_loop_loops_in_flight{binding="notes",wire="chat"}')).toBe(0);
    expect(await series(registry, 'agent_loop_loops_total{binding="notes",wire="chat",stop="final"}')).toBe(1);
    expect(
      await series(registry, 'agent_loop_turn_duration_seconds_count{binding="notes",wire="chat",outcome="ok"}'),
    ).toBe(1);
    expect(
      await series(registry, 'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="notes_read",outcome="ok"}'),
    ).toBe(1);
    expect(
      await series(
        registry,
        'agent_loop_tool_calls_total{binding="notes",wire="chat",tool="_unknown",outcome="unknown_tool"}',
      ),
    ).toBe(1);
    expect(await series(registry, 'agent_loop_approvals_total{binding="notes",wire="chat",outcome="asked"}')).toBe(1);
    expect(await series(registry, 'agent_loop_tokens_total{binding="notes",wire="chat",type="input"}')).toBe(12);
  });

  it('only records, for the admin API, when tracing and metrics are off', () => {
    const recorder = new LoopRecorder(false);
    const telemetry = Telemetry.recording(undefined, recorder);
    expect(telemetry.metrics).toBeUndefined();
    const loop = telemetry.loop(req, 'notes', 'agent-1', 'loop-1', 'chat')!;
    const turn = loop.turn([]);
    expect(turn.headers).toBeUndefined();
    expect(turn.within(() => 'ran')).toBe('ran');
    turn.failed('upstream_error');
    expect(recorder.snapshot().inFlight.map((view) => view.turns.map((record) => record.outcome))).toEqual([
      ['upstream_error'],
    ]);
    loop.ended('upstream_error', { turns: 1, toolCalls: 0 }, undefined);
    expect(recorder.snapshot()).toEqual({
      inFlight: [],
      recent: [expect.objectContaining({ id: 'loop-1', stop: 'upstream_error' })],
    });
  });

  it('records beside the metrics of a telemetry it is given', async () => {
    const registry = new Registry();
    const telemetry = Telemetry.create({ telemetry: { tracing: false }, metrics: { registry } });
    const recorder = new LoopRecorder(false);
    expect(Telemetry.recording(telemetry, recorder)).toBe(telemetry);
    telemetry!.loop(req, 'notes', 'agent-1', 'loop-2', 'chat')!.ended('final', { turns: 1, toolCalls: 0 }, undefined);
    expect(recorder.snapshot().recent.map((view) => view.id)).toEqual(['loop-2']);
    expect(await series(registry, 'agent_loop_loops_total{binding="notes",wire="chat",stop="final"}')).toBe(1);
  });
});
