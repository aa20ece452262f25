import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { JAVASCRIPT_DIR_VARIABLE, transpileProject } from './helpers/javascript';

/** Once per jest run: the JavaScript of `lib/` and `fixtures/` for the child processes the specs start (a folder of its own per run). */
export default function globalSetup(): void {
  const cache = path.join(__dirname, '..', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'spec-javascript-'));
  transpileProject(dir, ['lib', 'fixtures']);
  process.env[JAVASCRIPT_DIR_VARIABLE] = dir;
}
