import { LoopRecorder, RECENT_LOOPS } from '../../lib/telemetry/loop-records';
import type { TurnResult, WireCall } from '../../lib/loop/turn-result';

const reply = (text: string, total = 17): TurnResult => ({
  text,
  calls: [],
  output: {},
  usage: { input: total - 5, output: 5, total },
  stop: 'stop',
  id: 'chatcmpl-1',
  model: 'gpt-4o',
  reply: {},
});
const call = (id: string, args: unknown = '{"id":"groceries"}'): WireCall => ({
  id,
  name: 'notes_read',
  arguments: args,
  index: 0,
});

describe('LoopRecorder', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-12-01T12:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('shows a loop in flight with the tool calls running now, then as finished with how it ended', () => {
    const recorder = new LoopRecorder(false);
    const record = recorder.start('loop-1', 'notes', 'agent-1');
    const turnEnded = record.turn();
    jest.advanceTimersByTime(40);
    turnEnded('ok', reply(''));
    const first = record.tool(call('call_1'));
    const second = record.tool(call('call_2'));
    jest.advanceTimersByTime(10);
    first('ok', 'groceries: milk');
    recorder.verdict('loop-1', { surface: 'tool_call', tool: 'notes_read', action: 'block', reason: 'no notes' });
    expect(recorder.snapshot()).toEqual({
      inFlight: [
        {
          id: 'loop-1',
          binding: 'notes',
          model: 'agent-1',
          startedAt: '2026-12-01T12:00:00.000Z',
          durationMs: 50,
          turn: 1,
          turns: [
            {
              turn: 1,
              startMs: 0,
              durationMs: 40,
              outcome: 'ok',
              tokens: 17,
              toolCalls: [
                { id: 'call_1', tool: 'notes_read', startMs: 40, durationMs: 10, outcome: 'ok' },
                { id: 'call_2', tool: 'notes_read', startMs: 40 },
              ],
            },
          ],
          verdicts: [{ turn: 1, surface: 'tool_call', tool: 'notes_read', action: 'block', reason: 'no notes' }],
          running: [{ id: 'call_2', tool: 'notes_read', startMs: 40 }],
        },
      ],
      recent: [],
    });
    second('tool_error', 'tool error: gone');
    jest.advanceTimersByTime(5);
    record.end('final', { input: 30, output: 10, total: 40 });
    recorder.ended(record);
    const { inFlight, recent } = recorder.snapshot();
    expect(inFlight).toEqual([]);
    expect(recent).toEqual([
      expect.objectContaining({
        id: 'loop-1',
        durationMs: 55,
        stop: 'final',
        usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 },
      }),
    ]);
    expect(recent[0].running).toBeUndefined();
  });

  it.each([
    ['input', 'waiting for input'],
    ['authorization', 'waiting for sign-in'],
  ])('shows a loop that stopped with %s as %s', (stop, state) => {
    const recorder = new LoopRecorder(false);
    const record = recorder.start('asks', 'notes', 'agent-1');
    record.end(stop, undefined);
    recorder.ended(record);
    expect(recorder.snapshot().recent).toEqual([expect.objectContaining({ stop, state })]);
  });

  it('gives a loop that ended for good no state', () => {
    const recorder = new LoopRecorder(false);
    const record = recorder.start('done', 'notes', 'agent-1');
    record.end('final', undefined);
    recorder.ended(record);
    expect(recorder.snapshot().recent[0].state).toBeUndefined();
  });

  it('keeps the texts only with captureContent, each cut at 2000 characters', () => {
    const quiet = new LoopRecorder(false).start('q', 'notes', 'agent-1');
    const loud = new LoopRecorder(true).start('l', 'notes', 'agent-1');
    for (const record of [quiet, loud]) {
      record.turn()('ok', reply('x'.repeat(2001)));
      record.tool(call('call_1', { id: 'groceries' }))('ok', 'milk');
    }
    expect(quiet.view().turns[0]).toEqual({
      turn: 1,
      startMs: 0,
      durationMs: 0,
      outcome: 'ok',
      tokens: 17,
      toolCalls: [{ id: 'call_1', tool: 'notes_read', startMs: 0, durationMs: 0, outcome: 'ok' }],
    });
    expect(loud.view().turns[0]).toEqual(
      expect.objectContaining({
        content: `${'x'.repeat(2000)}…`,
        toolCalls: [expect.objectContaining({ arguments: '{"id":"groceries"}', result: 'milk' })],
      }),
    );
  });

  it('leaves out the content of a turn that said nothing, and the tokens of one that did not count them', () => {
    const record = new LoopRecorder(true).start('l', 'notes', 'agent-1');
    record.turn()('ok', { ...reply(''), usage: undefined });
    record.turn()('upstream_error');
    expect(record.view().turns.map(({ content, tokens, outcome }) => ({ content, tokens, outcome }))).toEqual([
      { content: undefined, tokens: undefined, outcome: 'ok' },
      { content: undefined, tokens: undefined, outcome: 'upstream_error' },
    ]);
  });

  it(`keeps the last ${RECENT_LOOPS} finished loops, newest first`, () => {
    const recorder = new LoopRecorder(false);
    for (let i = 1; i <= RECENT_LOOPS + 2; i++) {
      const record = recorder.start(`loop-${i}`, 'notes', 'agent-1');
      record.end('final', undefined);
      recorder.ended(record);
    }
    const { recent } = recorder.snapshot();
    expect(recent).toHaveLength(RECENT_LOOPS);
    expect([recent[0].id, recent.at(-1)!.id]).toEqual([`loop-${RECENT_LOOPS + 2}`, 'loop-3']);
  });

  it('drops a verdict for a loop it does not hold', () => {
    const recorder = new LoopRecorder(false);
    recorder.verdict('gone', { surface: 'context', tool: 'x', action: 'allow' });
    expect(recorder.snapshot()).toEqual({ inFlight: [], recent: [] });
  });
});
