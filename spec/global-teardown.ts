import { rmSync } from 'node:fs';
import { JAVASCRIPT_DIR_VARIABLE } from './helpers/javascript';

export default function globalTeardown(): void {
  const dir = process.env[JAVASCRIPT_DIR_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
