import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { transpileProject } from '../bench/lib/javascript';
import { JAVASCRIPT_DIR_VARIABLE } from './helpers/javascript';

/** Once per jest run: the project's JavaScript for the child processes the specs start (a folder of its own per run). */
export default function globalSetup(): void {
  const cache = path.join(__dirname, '..', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(path.join(cache, 'spec-javascript-'));
  transpileProject(dir);
  process.env[JAVASCRIPT_DIR_VARIABLE] = dir;
}
