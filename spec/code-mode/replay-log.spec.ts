import {
  argumentsDigest,
  isReplayLog,
  MAX_REPLAY_BYTES,
  ProgramRecord,
  type ReplayLog,
} from '../../lib/code-mode/replay-log';

const log: ReplayLog = {
  code: 'await tools.a({}); await tools.b({ x: 1, y: 2 }); await tools.c({});',
  calls: [
    { name: 'a', args: argumentsDigest('{}'), answer: { value: 'A' } },
    { name: 'b', args: argumentsDigest('{"x":1,"y":2}') },
  ],
  waiting: 1,
};

describe("a program's replay log", () => {
  it('digests arguments however their keys are ordered, and keeps none of them', () => {
    expect(argumentsDigest('{"y":2,"x":1}')).toBe(argumentsDigest('{"x":1,"y":2}'));
    expect(argumentsDigest('{"x":1}')).not.toBe(argumentsDigest('{"x":2}'));
    expect(argumentsDigest('{"secret":"hunter2"}')).not.toContain('hunter2');
  });

  it('answers a resuming program from its log, the call that waited once, and the calls past it live', () => {
    const record = new ProgramRecord(log.code, log);
    expect(record.next('a', '{}')).toEqual({ n: 0, step: { replayed: { value: 'A' } } });
    expect(record.next('b', '{"y":2,"x":1}')).toEqual({ n: 1, step: { waited: true } });
    record.answered(1, { value: 'B' });
    expect(record.next('c', '{}')).toEqual({ n: 2, step: { live: true } });
    record.answered(2, { error: 'tool error: no' });
    expect(record.handBack(2)).toEqual({
      code: log.code,
      calls: [
        log.calls[0],
        { ...log.calls[1], answer: { value: 'B' } },
        { name: 'c', args: argumentsDigest('{}'), answer: { error: 'tool error: no' } },
      ],
      waiting: 2,
    });
  });

  it.each([
    [
      'another tool',
      'z',
      '{}',
      "run_code: when the program resumed, its call 1 was 'z' where it had been 'a'; nothing ran again (a program that resumes must make the same calls in the same order up to the one the person answered)",
    ],
    [
      'other arguments',
      'a',
      '{"n":1}',
      "run_code: when the program resumed, its call 1 was 'a' with other arguments than before; nothing ran again (a program that resumes must make the same calls in the same order up to the one the person answered)",
    ],
  ])('names a divergence (%s) readably', (_what, name, args, text) => {
    expect(new ProgramRecord(log.code, log).next(name, args).step).toEqual({ diverged: text });
  });

  it('runs a fresh program live, and hands back no log over its bound', () => {
    const record = new ProgramRecord('x'.repeat(MAX_REPLAY_BYTES));
    expect(record.next('a', '{}')).toEqual({ n: 0, step: { live: true } });
    expect(record.handBack(0)).toBeUndefined();
  });

  it('reads back only a log of its own shape', () => {
    expect(isReplayLog(log)).toBe(true);
    expect(isReplayLog({ ...log, waiting: 5 })).toBe(false);
    expect(isReplayLog({ code: 1, calls: [], waiting: 0 })).toBe(false);
    expect(isReplayLog(undefined)).toBe(false);
  });
});
