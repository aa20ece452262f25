import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench` runs this first: the bench's own packages (bench/package.json: the peers it measures, which the
 * project's install leaves out) are installed from its lock when they are missing or older than the lock.
 */
const bench = __dirname;
const lock = path.join(bench, 'package-lock.json');
const installed = path.join(bench, 'node_modules', '.package-lock.json');
const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : -1);

if (mtime(installed) < mtime(lock)) {
  console.log("installing the bench's own packages (npm --prefix bench ci)");
  execSync('npm ci --no-audit --no-fund', { cwd: bench, stdio: 'inherit' });
}
