import { runProgram, type NestedAnswer } from '../../lib/code-mode/sandbox';

const limits = { timeoutSec: 10, memoryMb: 32, maxCalls: 5 };
const never = new AbortController().signal;
const echo = async (name: string, args: string): Promise<NestedAnswer> => ({ value: { name, args: JSON.parse(args) } });

describe('the sandbox a program runs in', () => {
  it("hands each tools call's name and arguments to the host, and resolves it with the host's answer", async () => {
    const end = await runProgram("return [await tools.a({ n: 1 }), await tools['b-c']()];", limits, echo, never);
    expect(end).toEqual({
      ok: true,
      value: JSON.stringify([
        { name: 'a', args: { n: 1 } },
        { name: 'b-c', args: {} },
      ]),
      log: [],
    });
  });

  it('throws an answer that is an error into the program, and a host call that fails reads as a tool error', async () => {
    const end = await runProgram(
      "const seen = [];\nfor (const name of ['a', 'b']) try { await tools[name]({}); } catch (e) { seen.push(e.message); }\nreturn seen;",
      limits,
      async (name) => {
        if (name === 'a') return { error: '⛔ no' };
        throw new Error('broken host');
      },
      never,
    );
    expect(end).toEqual({ ok: true, value: '["⛔ no","tool error: broken host"]', log: [] });
  });

  it('returns null for a program that returns nothing, and logs what JSON cannot say as text', async () => {
    const end = await runProgram(
      "const loop = {}; loop.self = loop;\nconsole.log('a', 1, loop, undefined);\nawait tools;",
      limits,
      echo,
      never,
    );
    expect(end).toEqual({ ok: true, value: 'null', log: ['a 1 [object Object] undefined'] });
  });

  it('returns null for what JSON cannot say, and a value JSON refuses as a thrown error', async () => {
    expect(await runProgram('return () => 1;', limits, echo, never)).toEqual({ ok: true, value: 'null', log: [] });
    expect(await runProgram('return 1n;', limits, echo, never)).toMatchObject({
      ok: false,
      problem: { kind: 'threw', name: 'TypeError', message: 'Do not know how to serialize a BigInt' },
    });
  });

  it('tells onLog each line as the program logs it, before the call that follows it', async () => {
    const heard: string[] = [];
    const end = await runProgram(
      "console.log('first', { n: 1 });\nawait tools.a({});\nconsole.log('second');\nreturn 1;",
      limits,
      async (name, args) => (heard.push(`call ${name}`), echo(name, args)),
      never,
      (line) => heard.push(line),
    );
    expect(heard).toEqual(['first {"n":1}', 'call a', 'second']);
    expect(end.log).toEqual(['first {"n":1}', 'second']);
  });

  it('keeps at most 64 KiB of log', async () => {
    const end = await runProgram("for (let i = 0; i < 100; i++) console.log('x'.repeat(1023));", limits, echo, never);
    expect(end.log).toHaveLength(64);
  });

  it('ends deep recursion as a thrown stack overflow', async () => {
    const end = await runProgram('const f = (n) => f(n + 1) + 1;\nreturn f(0);', limits, echo, never);
    expect(end).toEqual({
      ok: false,
      problem: { kind: 'threw', name: 'InternalError', message: 'stack overflow', line: 1 },
      log: [],
    });
  });

  it("leaves the host's objects alone: a program polluting its own prototypes touches nothing here", async () => {
    const end = await runProgram(
      'Object.prototype.polluted = true;\nArray.prototype.push = null;\nreturn ({}).polluted;',
      limits,
      echo,
      never,
    );
    expect(end.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([1].push(2)).toBe(2);
  });

  it('stops a spinning program when the loop ends', async () => {
    const cancel = new AbortController();
    const ended = runProgram(
      'await tools.started({});\nwhile (true) {}',
      limits,
      async () => {
        setImmediate(() => cancel.abort());
        return { value: null };
      },
      cancel.signal,
    );
    expect(await ended).toEqual({ ok: false, problem: { kind: 'cancelled' }, log: [] });
  });

  it('runs nothing for a loop that ended already', async () => {
    const cancel = new AbortController();
    cancel.abort();
    expect(await runProgram('return 1;', limits, echo, cancel.signal)).toEqual({
      ok: false,
      problem: { kind: 'cancelled' },
      log: [],
    });
  });
});
