import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { SANDBOX_WORKER } from './sandbox-worker';
import type { CodeModeConfig } from './options';

/** What a nested call gives the program: the value its `await` resolves to, or the text of the error it throws. */
export type NestedAnswer = { value: unknown } | { error: string };

/** Why a program ended without a value. */
export type ProgramProblem =
  | { kind: 'syntax' | 'threw'; name: string; message: string; line?: number }
  | { kind: 'deadline' | 'memory' | 'never_settles' | 'too_many_calls' | 'cancelled' }
  | { kind: 'crashed'; message: string };

/** How a program ended: its return value as JSON, or its problem; its `console.log` lines either way. */
export type ProgramEnd = ({ ok: true; value: string } | { ok: false; problem: ProgramProblem }) & { log: string[] };

/** The log a program keeps at most (the rest is dropped); the tool result is cut to `maxToolResultBytes` after. */
const MAX_LOG_BYTES = 64 * 1024;
/** A worker stuck past its deadline (in a long allocation the interrupt does not reach) is ended this much later. */
const GRACE_MS = 1_000;
/** How long a worker may take to start QuickJS on a loaded machine before its program's time runs. */
const STARTUP_MS = 30_000;

/** Where the worker finds QuickJS; resolved on the first program, so a gateway without code mode never needs it. */
const paths = () => ({
  core: require.resolve('quickjs-emscripten-core'),
  variant: require.resolve('@jitl/quickjs-wasmfile-release-sync'),
});

/** A compiled WebAssembly.Module (the project's TypeScript libs do not declare WebAssembly) */
type WasmModule = object;
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };
};

let compiled: Promise<WasmModule> | undefined;
/** QuickJS's WebAssembly, compiled once per process and handed to each worker, which instantiates it afresh. */
function quickjsModule(): Promise<WasmModule> {
  compiled ??= readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then((bytes) =>
    wasm.compile(bytes),
  );
  return compiled;
}

/**
 * Runs the model's code in QuickJS in a worker thread of its own, so a busy program never holds the gateway's event
 * loop, and a stuck one is ended by terminating its worker. `call`: runs one `tools.<name>(args)` call (its
 * arguments as the program's JSON); past `maxCalls` the program ends. `signal`: the loop ended, so does the program.
 */
export async function runProgram(
  code: string,
  limits: CodeModeConfig,
  call: (name: string, args: string) => Promise<NestedAnswer>,
  signal: AbortSignal,
): Promise<ProgramEnd> {
  const wasmModule = await quickjsModule();
  const worker = new Worker(SANDBOX_WORKER, {
    eval: true,
    workerData: {
      ...paths(),
      wasmModule,
      code,
      timeoutMs: limits.timeoutSec * 1000,
      memoryBytes: limits.memoryMb * 2 ** 20,
      maxLogBytes: MAX_LOG_BYTES,
    },
    // the host side of the worker is small: QuickJS's own memory is WebAssembly memory, capped by memoryMb
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
  return new Promise<ProgramEnd>((resolve) => {
    let calls = 0;
    const log: string[] = [];
    const end = (result: ProgramEnd) => {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', onAbort);
      worker.removeAllListeners('message');
      void worker.terminate();
      resolve(result);
    };
    const failed = (problem: ProgramProblem) => end({ ok: false, problem, log });
    const deadline = () => failed({ kind: 'deadline' });
    // until the worker started, the watchdog allows for its start too
    let watchdog = setTimeout(deadline, STARTUP_MS + limits.timeoutSec * 1000 + GRACE_MS);
    const onAbort = () => failed({ kind: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) return onAbort();
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'started') {
        clearTimeout(watchdog);
        watchdog = setTimeout(deadline, limits.timeoutSec * 1000 + GRACE_MS);
        return;
      }
      if (message.type === 'done') {
        const { type: _done, ...ended } = message;
        return end(ended);
      }
      if (++calls > limits.maxCalls) return failed({ kind: 'too_many_calls' });
      void call(message.name, message.args)
        .catch((error: Error): NestedAnswer => ({ error: `tool error: ${error.message}` }))
        .then((answer) => worker.postMessage({ id: message.id, json: JSON.stringify(answer) }));
    });
    worker.on('error', (error: Error & { code?: string }) =>
      failed(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'memory' } : { kind: 'crashed', message: error.message },
      ),
    );
    worker.on('exit', () => failed({ kind: 'crashed', message: 'the sandbox stopped' }));
  });
}

type WorkerMessage =
  { type: 'started' } | ({ type: 'done' } & ProgramEnd) | { type: 'call'; id: number; name: string; args: string };
