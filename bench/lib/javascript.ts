import fs from 'node:fs';
import path from 'node:path';
import { transpileProject } from '../../spec/helpers/javascript';

const root = path.resolve(__dirname, '..', '..');
// Under node_modules so that the transpiled files still resolve the project's packages.
const benchOutDir = path.join(root, 'node_modules', '.cache', 'express-agent-loop-bench');
/**
 * The bench's own packages (bench/package.json), for the transpiled files: they sit under the root's node_modules,
 * so the project's packages resolve first and these only for what the project does not install.
 */
export const BENCH_PACKAGES = path.join(root, 'bench', 'node_modules');
let transpiled = false;

/**
 * The JavaScript of one of the project's TypeScript files, transpiled (once per harness run, with the project's
 * compiler options) so that the bench's processes run as a user's compiled gateway does. Not under ts-node: its
 * `repl` import loads Node's `domain` module, which wraps every EventEmitter `emit` of the process.
 */
export function javascriptOf(file: string): string {
  if (!transpiled) {
    fs.rmSync(benchOutDir, { recursive: true, force: true });
    fs.mkdirSync(benchOutDir, { recursive: true });
    transpileProject(benchOutDir, ['lib', 'fixtures', 'bench']);
    transpiled = true;
  }
  return path.join(benchOutDir, path.relative(root, file)).replace(/\.ts$/, '.js');
}
