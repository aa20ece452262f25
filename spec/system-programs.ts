/**
 * The system programs the specs need beside node_modules, in one list: `npm test`'s pretest step
 * (`ts-node --transpile-only spec/system-programs.ts`) finds each and, where it can (root, apt-get), installs the
 * Debian packages of those missing; otherwise it stops at once with the one command to run.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export interface SystemProgram {
  /** the program's name, looked up on PATH */
  program: string;
  /** the Debian package that installs it */
  debian: string;
  /** who needs it, for the message */
  neededBy: string;
}

export const SYSTEM_PROGRAMS: readonly SystemProgram[] = [
  { program: 'chromium', debian: 'chromium', neededBy: 'the admin page in a browser (spec/admin/page.spec.ts)' },
  { program: 'redis-server', debian: 'redis-server', neededBy: 'the Redis specs' },
];

/** Where `program` is on `searchPath` (PATH's form), or undefined. */
export function whereIs(program: string, searchPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The path of a program of the list, for a spec; throws the pretest's advice when it is missing. */
export function programPath(program: string): string {
  const found = whereIs(program);
  if (found) return found;
  throw new Error(
    `${program} is missing: ${installCommand(SYSTEM_PROGRAMS.filter((entry) => entry.program === program))} (npm test's pretest installs it when run as root)`,
  );
}

const installCommand = (missing: readonly SystemProgram[]) =>
  `sudo apt-get install -y ${missing.map((entry) => entry.debian).join(' ')}`;

export interface Machine {
  searchPath: string;
  /** root, with apt-get on the path: the pretest may install */
  canInstall: boolean;
  /** runs a command, its output shown as it goes; true when it exits 0 */
  run(command: string, args: string[]): boolean;
  say(line: string): void;
}

/** Finds the programs, installs the missing ones when it can; the exit code of the pretest step. */
export function provide(programs: readonly SystemProgram[], machine: Machine): number {
  const absent = () => programs.filter((entry) => !whereIs(entry.program, machine.searchPath));
  const missing = absent();
  if (missing.length === 0) return 0;
  const needs = missing.map((entry) => `${entry.program} (${entry.neededBy})`).join(', ');
  if (!machine.canInstall) {
    machine.say(
      `npm test needs ${needs}, not installed here. Run this once, then npm test again:\n  ${installCommand(missing)}`,
    );
    return 1;
  }
  machine.say(`npm test needs ${needs}: installing ${missing.map((entry) => entry.debian).join(' ')} with apt-get`);
  if (machine.run('apt-get', ['update']))
    machine.run('apt-get', ['install', '-y', '--no-install-recommends', ...missing.map((entry) => entry.debian)]);
  const still = absent();
  if (still.length === 0) return 0;
  machine.say(
    `apt-get did not install ${still.map((entry) => entry.program).join(', ')}; see its output above, then run:\n  ${installCommand(still)}`,
  );
  return 1;
}

if (require.main === module) {
  const searchPath = process.env.PATH ?? '';
  process.exitCode = provide(SYSTEM_PROGRAMS, {
    searchPath,
    canInstall: process.getuid?.() === 0 && whereIs('apt-get', searchPath) !== undefined,
    run: (command, args) =>
      spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
        .status === 0,
    say: (line) => console.error(line),
  });
}
