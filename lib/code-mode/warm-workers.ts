import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { SANDBOX_WORKER } from './sandbox-worker';

/** Idle workers kept per memory cap; more programs at once start more workers, which end after their program. */
const MAX_IDLE = 2;

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

/** Drops a worker's listeners (never all of them: Node's own ones start and stop its message port). */
export function forget(worker: Worker): void {
  for (const event of ['message', 'error', 'exit']) worker.removeAllListeners(event);
}

/** Idle workers by the memory cap their WebAssembly memory was made with (a cap is fixed when a worker starts). */
const idle = new Map<number, Worker[]>();

/**
 * A worker with QuickJS loading or loaded for programs of `memoryBytes`: an idle one when there is one (a warm start
 * costs a message, not a thread and a QuickJS instance), else a new one.
 */
export async function takeWorker(memoryBytes: number): Promise<Worker> {
  const warm = idle.get(memoryBytes)?.pop();
  if (warm) {
    forget(warm);
    warm.ref();
    return warm;
  }
  const wasmModule = await quickjsModule();
  return new Worker(SANDBOX_WORKER, {
    eval: true,
    workerData: { ...paths(), wasmModule, memoryBytes },
    // the host side of the worker is small: QuickJS's own memory is WebAssembly memory, capped by memoryMb
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
}

/**
 * Keeps a worker whose program ended cleanly for the next one (unref'd: an idle worker never holds the process open).
 */
export function keepWorker(worker: Worker, memoryBytes: number): void {
  const workers = idle.get(memoryBytes) ?? [];
  if (workers.length >= MAX_IDLE) return void worker.terminate();
  forget(worker);
  worker.unref();
  // a worker that ends while idle (it should not) is simply forgotten
  worker.once('exit', () => {
    const at = workers.indexOf(worker);
    if (at >= 0) workers.splice(at, 1);
  });
  worker.once('error', () => undefined);
  workers.push(worker);
  idle.set(memoryBytes, workers);
}

/** The thread ids of the idle workers, for tests and the bench. */
export function idleWorkers(): number[] {
  return [...idle.values()].flat().map((worker) => worker.threadId);
}

/** Ends every idle worker (the middleware's close()); a later program starts a new one. */
export async function closeIdleWorkers(): Promise<void> {
  const workers = [...idle.values()].flat();
  idle.clear();
  await Promise.all(workers.map((worker) => worker.terminate()));
}
