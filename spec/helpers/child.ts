import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A forked TypeScript file, run as `entry` (its transpiled JavaScript, spec/helpers/javascript.ts), that says
 * `{ type: 'ready' }` and answers asks over IPC (fixtures/ipc.ts).
 */
export class Child {
  private readonly proc: ChildProcess;
  private stderrTail = '';
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exit?: string;
  readonly ready: Promise<Record<string, unknown>>;

  constructor(
    readonly file: string,
    entry: string,
    env: Record<string, string> = {},
    readyTimeoutMs = 60_000,
    extraExecArgv: string[] = [],
  ) {
    const proc: ChildProcess = fork(entry, [], {
      execArgv: ['--expose-gc', ...extraExecArgv],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    this.proc = proc;
    proc.stderr?.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-8000)));
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready after ${readyTimeoutMs} ms`)), readyTimeoutMs);
      proc.on('message', (message: { type?: string; id?: number; result?: unknown; error?: string }) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message as Record<string, unknown>);
        }
        const pending = message.id === undefined ? undefined : this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id as number);
        clearTimeout(pending.timer);
        if (message.error) pending.reject(new Error(message.error));
        else pending.resolve(message.result);
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        this.exit = `exited (${signal ?? code})`;
        const error = new Error(`${this.exit}: ${this.failure()}`);
        reject(error);
        for (const pending of this.pending.values()) pending.reject(error);
        this.pending.clear();
      });
    });
    this.ready.catch(() => undefined);
  }

  ask<T>(type: string, payload?: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.exit) return Promise.reject(new Error(`${this.file} ${this.exit}: ${this.failure()}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`ask '${type}' timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.proc.send({ id, type, payload });
    });
  }

  /** the most telling line of the child's stderr (the error of a module that failed to load) */
  failure(): string {
    const lines = this.stderrTail
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    return lines.find((line) => /^(\w*Error|TSError)\b|^Error:/.test(line)) ?? lines.at(-1) ?? 'no stderr';
  }

  async stop(): Promise<void> {
    if (this.exit) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.disconnect();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}
