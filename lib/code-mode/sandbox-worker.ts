/**
 * A sandbox worker thread, as source: a worker started from this text (`eval`) runs the same under ts-node,
 * jest's transform and the built package, where a worker file would need a loader of its own. Plain JavaScript that
 * only the worker reads: it loads QuickJS once (paths resolved by the host), then runs each program it is sent in a
 * QuickJS runtime and context of its own (so nothing of one program is seen by the next), with the limits given, and
 * passes each `tools.<name>(args)` call to the host as a message (and, when asked, each line it logs).
 */
export const SANDBOX_WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { core, variant, wasmModule, memoryBytes } = workerData;
const { newQuickJSWASMModuleFromVariant, newVariant } = require(core);
// the WebAssembly memory itself is capped too: QuickJS's limit, its stack and its static data fit below the maximum
const PAGE = 65536;
const HEADROOM = 32 * 1024 * 1024;
const memory = new WebAssembly.Memory({ initial: 256, maximum: Math.ceil((memoryBytes + HEADROOM) / PAGE) });

const PRELUDE = '(function () {' +
  'const call = globalThis.__call, log = globalThis.__log; delete globalThis.__call; delete globalThis.__log;' +
  'const text = (value) => typeof value === "string" ? value : ' +
  '(() => { try { return JSON.stringify(value) ?? String(value); } catch { return String(value); } })();' +
  'globalThis.console = Object.freeze({ log: (...values) => log(values.map(text).join(" ")) });' +
  'globalThis.tools = new Proxy({}, { get: (_, name) => typeof name !== "string" || name === "then" ? undefined :' +
  '  async (args) => { const answer = JSON.parse(await call(name, JSON.stringify(args === undefined ? {} : args)));' +
  '    if ("error" in answer) throw new Error(answer.error); return answer.value; } });' +
  '})();';

function lineOf(error) {
  const at = /:(\d+)(?::\d+)?\)?\s*$/m.exec(String(error && error.stack || ''));
  return at ? Math.max(1, Number(at[1]) - 1) : undefined;
}

const loaded = newQuickJSWASMModuleFromVariant(
  newVariant(require(variant).default, { wasmMemory: memory, ...(wasmModule ? { wasmModule } : {}) }),
);
let current;
function crashed(error) {
  if (current) return current.crashed(error);
  const message = String(error && error.message || error);
  const problem = /memory|OOM/i.test(message) ? { kind: 'memory' } : { kind: 'crashed', message };
  parentPort.postMessage({ type: 'done', ok: false, problem, log: [], reusable: false });
}
parentPort.on('message', (message) => {
  if (message.type === 'run') return run(message).catch(crashed);
  if (current) current.answer(message);
});

async function run({ code, timeoutMs, maxLogBytes, streamsLog }) {
  const quickjs = await loaded;
  let deadline = Infinity;
  let finished = false;
  const log = [];
  let logBytes = 0;
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(512 * 1024);
  runtime.setInterruptHandler(() => Date.now() > deadline);
  // the program's time starts once QuickJS is ready: a loaded machine slows the start, never the program
  deadline = Date.now() + timeoutMs;
  parentPort.postMessage({ type: 'started' });
  const vm = runtime.newContext();
  const waiting = new Map();
  let nextId = 0;
  let result;
  let timer;

  // a program that ended cleanly frees its runtime, and the worker may run the next one; else the host ends it
  function finish(message) {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    current = undefined;
    let reusable = waiting.size === 0;
    if (reusable) {
      try {
        if (result) result.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        reusable = false;
      }
    }
    parentPort.postMessage({ type: 'done', ...message, log, reusable });
  }
  current = {
    crashed: (error) => {
      current = undefined;
      crashed(error);
    },
    answer: (answer) => {
      const promise = waiting.get(answer.id);
      if (!promise || finished) return;
      waiting.delete(answer.id);
      const text = vm.newString(answer.json);
      promise.resolve(text);
      text.dispose();
      promise.dispose();
      settle();
    },
  };

  const callFn = vm.newFunction('__call', (name, args) => {
    const id = nextId++;
    const promise = vm.newPromise();
    waiting.set(id, promise);
    parentPort.postMessage({ type: 'call', id, name: vm.getString(name), args: vm.getString(args) });
    return promise.handle;
  });
  vm.setProp(vm.global, '__call', callFn);
  callFn.dispose();
  const logFn = vm.newFunction('__log', (line) => {
    const text = vm.getString(line);
    logBytes += Buffer.byteLength(text) + 1;
    if (logBytes > maxLogBytes) return;
    log.push(text);
    if (streamsLog) parentPort.postMessage({ type: 'log', text });
  });
  vm.setProp(vm.global, '__log', logFn);
  logFn.dispose();
  vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js')).dispose();

  const compiled = vm.evalCode(
    '(async () => {\n' + code + '\n})().then((value) => JSON.stringify(value) ?? \"null\")',
    'program.js',
  );
  if (compiled.error) {
    const error = vm.dump(compiled.error);
    compiled.error.dispose();
    return finish({ ok: false, problem: problemOf(error, true) });
  }
  result = compiled.value;

  function settle() {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const error = vm.dump(jobs.error);
      jobs.error.dispose();
      return finish({ ok: false, problem: problemOf(error, false) });
    }
    const state = vm.getPromiseState(result);
    if (state.type === 'fulfilled') {
      const value = vm.getString(state.value);
      state.value.dispose();
      return finish({ ok: true, value });
    }
    if (state.type === 'rejected') {
      const error = vm.dump(state.error);
      state.error.dispose();
      return finish({ ok: false, problem: problemOf(error, false) });
    }
    if (waiting.size === 0) finish({ ok: false, problem: { kind: 'never_settles' } });
  }

  timer = setTimeout(() => finish({ ok: false, problem: { kind: 'deadline' } }), Math.max(0, deadline - Date.now()));
  timer.unref();
  settle();
}

function problemOf(error, compiling) {
  const message = error && typeof error === 'object' ? String(error.message) : String(error);
  const name = error && typeof error === 'object' ? String(error.name) : 'Error';
  if (name === 'InternalError' && message === 'interrupted') return { kind: 'deadline' };
  if (message === 'out of memory' || /^out of memory/.test(message)) return { kind: 'memory' };
  if (compiling || name === 'SyntaxError')
    return { kind: compiling ? 'syntax' : 'threw', name, message, line: lineOf(error) };
  return { kind: 'threw', name, message, line: lineOf(error) };
}
`;
