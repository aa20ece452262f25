import path from 'node:path';

/** Where the global set-up put this run's JavaScript of `lib/`, `fixtures/` and `bench/` (spec/global-setup.ts). */
export const JAVASCRIPT_DIR_VARIABLE = 'AGENT_LOOP_SPEC_JAVASCRIPT';

const ROOT = path.join(__dirname, '..', '..');

/**
 * The JavaScript of one of the project's TypeScript files, for a child process a spec starts: plain `node` on it
 * starts in a fraction of the time `-r ts-node/register` takes (no compiler in every child), as a user's compiled
 * gateway does.
 */
export function javascript(file: string): string {
  const dir = process.env[JAVASCRIPT_DIR_VARIABLE];
  if (!dir) throw new Error(`${JAVASCRIPT_DIR_VARIABLE} is not set: run the specs with jest (jest.config.js's globalSetup transpiles them)`);
  return path.join(dir, path.relative(ROOT, path.resolve(ROOT, file))).replace(/\.ts$/, '.js');
}
