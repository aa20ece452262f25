import fs from 'node:fs';
import path from 'node:path';
import { transformSync, type Options } from '@swc/core';

/** Where the global set-up put this run's JavaScript of `lib/` and `fixtures/` (spec/global-setup.ts). */
export const JAVASCRIPT_DIR_VARIABLE = 'AGENT_LOOP_SPEC_JAVASCRIPT';

const ROOT = path.join(__dirname, '..', '..');

/** jest's own transform options (jest.config.js): the children run the JavaScript the specs run. */
const swcOptions = (): Options => JSON.parse(fs.readFileSync(path.join(ROOT, '.swcrc'), 'utf8')) as Options;

function transpileTree(dir: string, outDir: string, options: Options): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const source = path.join(dir, entry.name);
    if (entry.name === 'node_modules') continue;
    if (entry.isDirectory()) transpileTree(source, outDir, options);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const target = path.join(outDir, path.relative(ROOT, source)).replace(/\.ts$/, '.js');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(
        target,
        transformSync(fs.readFileSync(source, 'utf8'), { ...options, filename: source, swcrc: false }).code,
      );
    }
  }
}

/**
 * The project's folders `sources` (`lib`, `fixtures`...) transpiled into `outDir` (a folder inside the project, so
 * that the project's packages resolve), with links to the project's other files (`admin-page/`, `package.json`,
 * ...) beside them.
 */
export function transpileProject(outDir: string, sources: readonly string[]): void {
  const options = swcOptions();
  for (const dir of sources) transpileTree(path.join(ROOT, dir), outDir, options);
  for (const entry of fs.readdirSync(ROOT)) {
    if (![...sources, 'spec', 'node_modules', '.git', '.cache'].includes(entry))
      fs.symlinkSync(path.join(ROOT, entry), path.join(outDir, entry));
  }
}

/**
 * The JavaScript of one of the project's TypeScript files, for a child process a spec starts: plain `node` on it
 * starts in a fraction of the time `-r ts-node/register` takes (no compiler in every child), as a user's compiled
 * gateway does.
 */
export function javascript(file: string): string {
  const dir = process.env[JAVASCRIPT_DIR_VARIABLE];
  if (!dir)
    throw new Error(
      `${JAVASCRIPT_DIR_VARIABLE} is not set: run the specs with jest (jest.config.js's globalSetup transpiles them)`,
    );
  return path.join(dir, path.relative(ROOT, path.resolve(ROOT, file))).replace(/\.ts$/, '.js');
}
