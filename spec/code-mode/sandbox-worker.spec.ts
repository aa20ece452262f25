import { SANDBOX_WORKER } from '../../lib/code-mode/sandbox-worker';
import { runProgram } from '../../lib/code-mode/sandbox';

const limits = { timeoutSec: 10, memoryMb: 32, maxCalls: 5 };
const never = new AbortController().signal;

describe("the program's worker", () => {
  it('is plain JavaScript, so it runs the same under ts-node, jest and the built package', () => {
    expect(() => new Function('require', SANDBOX_WORKER)).not.toThrow();
  });

  it('leaves the program only tools and console: its host functions are gone, tools is no thenable, console is frozen', async () => {
    const end = await runProgram(
      'console.log = null;\nreturn [typeof __call, typeof __log, typeof console.log, typeof tools.then, typeof tools[Symbol.iterator], (await tools) === tools];',
      limits,
      async () => ({ value: null }),
      never,
    );
    expect(end).toEqual({
      ok: true,
      value: '["undefined","undefined","function","undefined","undefined",true]',
      log: [],
    });
  });
});
