import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentLoop } from '../../lib';
import { runProgram, type NestedAnswer } from '../../lib/code-mode/sandbox';
import { closeIdleWorkers, idleWorkers } from '../../lib/code-mode/warm-workers';
import { localTrellis } from '../../lib/trellis/local';

const limits = { timeoutSec: 10, memoryMb: 24, maxCalls: 5 };
const never = new AbortController().signal;
const echo = async (): Promise<NestedAnswer> => ({ value: 1 });

describe('warm sandbox workers', () => {
  beforeEach(closeIdleWorkers);
  afterAll(closeIdleWorkers);

  it('runs the next program in the same worker, in a QuickJS context of its own', async () => {
    expect(await runProgram('globalThis.seen = 1;\nreturn await tools.a();', limits, echo, never)).toEqual({
      ok: true,
      value: '1',
      log: [],
    });
    const [worker] = idleWorkers();
    expect(idleWorkers()).toEqual([worker]);
    const second = runProgram('return typeof globalThis.seen;', limits, echo, never);
    // the warm worker is taken: no second thread is started
    expect(idleWorkers()).toEqual([]);
    expect(await second).toEqual({ ok: true, value: '"undefined"', log: [] });
    expect(idleWorkers()).toEqual([worker]);
  });

  it('keeps the worker of a program that threw, and keeps workers per memory cap', async () => {
    await runProgram('throw new Error("no");', limits, echo, never);
    await runProgram('return 1;', { ...limits, memoryMb: 40 }, echo, never);
    expect(idleWorkers()).toHaveLength(2);
  });

  it('never reuses the worker of a program that hit its deadline, or was stopped', async () => {
    await runProgram('return 1;', limits, echo, never);
    expect(idleWorkers()).toHaveLength(1);
    const spin = await runProgram('while (true) {}', { ...limits, timeoutSec: 1 }, echo, never);
    expect(spin).toEqual({ ok: false, problem: { kind: 'deadline' }, log: [] });
    expect(idleWorkers()).toEqual([]);
    const cancel = new AbortController();
    const stopped = runProgram(
      'await tools.a();\nwhile (true) {}',
      limits,
      async () => {
        setImmediate(() => cancel.abort());
        return { value: null };
      },
      cancel.signal,
    );
    expect(await stopped).toEqual({ ok: false, problem: { kind: 'cancelled' }, log: [] });
    expect(idleWorkers()).toEqual([]);
  });

  it('never reuses the worker of a program left awaiting a call', async () => {
    const end = await runProgram('tools.a();\nreturn 1;', limits, () => new Promise(() => undefined), never);
    expect(end).toEqual({ ok: true, value: '1', log: [] });
    expect(idleWorkers()).toEqual([]);
  });

  it('keeps at most two idle workers for a memory cap', async () => {
    await Promise.all([1, 2, 3].map(() => runProgram('return 1;', limits, echo, never)));
    expect(idleWorkers()).toHaveLength(2);
  });

  it("ends idle workers on the middleware's close()", async () => {
    await runProgram('return 1;', limits, echo, never);
    expect(idleWorkers()).toHaveLength(1);
    const trellis = localTrellis([{ name: 'a', handler: () => 'a' }]);
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    await agentLoop({
      trellis,
      bindings: [{ name: 'b', match: { model: '*' }, hierarchy: 'a' }],
      logger: quiet,
    }).close();
    expect(idleWorkers()).toEqual([]);
  });

  it('never holds the process open with an idle worker', async () => {
    const program = `require('./lib/code-mode/sandbox').runProgram('return 2;', ${JSON.stringify(limits)}, async () => ({}),
      new AbortController().signal).then((end) => console.log(JSON.stringify(end)))`;
    // the process exits by itself once the program ended, its worker idle
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', program],
      { cwd: path.join(__dirname, '../..'), timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ ok: true, value: '2', log: [] });
  }, 70_000);
});
