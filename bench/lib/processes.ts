import path from 'node:path';
import { Child } from '../../spec/helpers/child';
import { BENCH_PACKAGES, javascriptOf } from './javascript';

/** A bench process: `file` run as its transpiled JavaScript, finding the bench's own packages (bench/package.json) too. */
export class BenchChild extends Child {
  constructor(file: string, env: Record<string, string> = {}, readyTimeoutMs?: number, extraExecArgv?: string[]) {
    super(
      file,
      javascriptOf(file),
      { NODE_PATH: [BENCH_PACKAGES, process.env.NODE_PATH].filter(Boolean).join(path.delimiter), ...env },
      readyTimeoutMs,
      extraExecArgv,
    );
  }
}
