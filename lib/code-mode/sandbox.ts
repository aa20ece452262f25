import { forget, keepWorker, takeWorker } from './warm-workers';
import type { CodeModeConfig } from './options';
import type { NestedAnswer } from '../person/question';

export type { NestedAnswer };

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

/**
 * Runs the model's code in QuickJS in a worker thread, so a busy program never holds the gateway's event loop, and a
 * stuck one is ended by terminating its worker. A worker whose program ended cleanly is kept warm for the next
 * program (which gets a QuickJS runtime of its own); one whose program hit a limit or was stopped is never reused.
 * `call`: runs one `tools.<name>(args)` call (its arguments as the program's JSON); past `maxCalls` the program ends.
 * `signal`: the loop ended, so does the program. `onLog`: hears each line the program logs as it logs it (those the
 * log keeps).
 */
export async function runProgram(
  code: string,
  limits: CodeModeConfig,
  call: (name: string, args: string) => Promise<NestedAnswer>,
  signal: AbortSignal,
  onLog?: (line: string) => void,
): Promise<ProgramEnd> {
  const memoryBytes = limits.memoryMb * 2 ** 20;
  const worker = await takeWorker(memoryBytes);
  return new Promise<ProgramEnd>((resolve) => {
    let calls = 0;
    const log: string[] = [];
    const end = (result: ProgramEnd, reusable = false) => {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', onAbort);
      forget(worker);
      if (reusable) keepWorker(worker, memoryBytes);
      else void worker.terminate();
      resolve(result);
    };
    const failed = (problem: ProgramProblem) => end({ ok: false, problem, log });
    const deadline = () => failed({ kind: 'deadline' });
    // until the worker started, the watchdog allows for its start too
    let watchdog = setTimeout(deadline, STARTUP_MS + limits.timeoutSec * 1000 + GRACE_MS);
    const onAbort = () => failed({ kind: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    // the worker ran nothing yet, so it stays warm
    if (signal.aborted) return end({ ok: false, problem: { kind: 'cancelled' }, log }, true);
    worker.postMessage({
      type: 'run',
      code,
      timeoutMs: limits.timeoutSec * 1000,
      maxLogBytes: MAX_LOG_BYTES,
      streamsLog: onLog !== undefined,
    });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'started') {
        clearTimeout(watchdog);
        watchdog = setTimeout(deadline, limits.timeoutSec * 1000 + GRACE_MS);
        return;
      }
      if (message.type === 'log') return onLog?.(message.text);
      if (message.type === 'done') {
        const { type: _done, reusable, ...ended } = message;
        return end(ended, reusable && (ended.ok || ended.problem.kind === 'syntax' || ended.problem.kind === 'threw'));
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
  | { type: 'started' }
  | { type: 'log'; text: string }
  | ({ type: 'done'; reusable: boolean } & ProgramEnd)
  | { type: 'call'; id: number; name: string; args: string };
