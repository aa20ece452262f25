import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import packageJson from '../package.json';
import { provide, SYSTEM_PROGRAMS, whereIs, type Machine, type SystemProgram } from './system-programs';

const ROOT = path.join(__dirname, '..');
const programs: SystemProgram[] = [
  { program: 'agent-loop-test-browser', debian: 'test-browser', neededBy: 'the page spec' },
  { program: 'agent-loop-test-store', debian: 'test-store', neededBy: 'the store specs' },
];

describe('the pretest step: the system programs the specs need', () => {
  let bin: string;
  beforeEach(() => {
    bin = mkdtempSync(path.join(tmpdir(), 'agent-loop-bin-'));
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  /** Puts an executable `program` in the machine's bin folder, as apt-get would. */
  const install = (program: string) => {
    writeFileSync(path.join(bin, program), '#!/bin/sh\n');
    chmodSync(path.join(bin, program), 0o755);
  };
  /** A machine whose PATH is the bin folder; its apt-get installs `installs` (or fails, with `false`). */
  const machine = (canInstall: boolean, installs: string[] | false = []) => {
    const ran: string[] = [];
    const said: string[] = [];
    const host: Machine = {
      searchPath: `${path.join(bin, 'none')}${path.delimiter}${bin}`,
      canInstall,
      run(command, args) {
        ran.push([command, ...args].join(' '));
        if (installs === false) return false;
        if (args[0] === 'install') installs.forEach(install);
        return true;
      },
      say: (line) => said.push(line),
    };
    return { host, ran, said };
  };

  it('lists chromium and redis-server, by their Debian packages', () => {
    expect(SYSTEM_PROGRAMS.map(({ program, debian }) => [program, debian])).toEqual([
      ['chromium', 'chromium'],
      ['redis-server', 'redis-server'],
    ]);
  });

  it('does nothing when every program is there', () => {
    programs.forEach(({ program }) => install(program));
    const { host, ran, said } = machine(true);
    expect(provide(programs, host)).toBe(0);
    expect([ran, said]).toEqual([[], []]);
  });

  it('stops at once with the one command to run when it cannot install (not root, or no apt-get)', () => {
    install('agent-loop-test-store');
    const { host, ran, said } = machine(false);
    expect(provide(programs, host)).toBe(1);
    expect(ran).toEqual([]);
    expect(said).toEqual([
      'npm test needs agent-loop-test-browser (the page spec), not installed here. Run this once, then npm test again:\n  sudo apt-get install -y test-browser',
    ]);
  });

  it('as root with apt-get, installs only the missing packages, then goes on', () => {
    install('agent-loop-test-store');
    const { host, ran, said } = machine(true, ['agent-loop-test-browser']);
    expect(provide(programs, host)).toBe(0);
    expect(ran).toEqual(['apt-get update', 'apt-get install -y --no-install-recommends test-browser']);
    expect(said).toEqual([
      'npm test needs agent-loop-test-browser (the page spec): installing test-browser with apt-get',
    ]);
  });

  it('stops with the command when apt-get fails or installs something else', () => {
    const failing = machine(true, false);
    expect(provide(programs, failing.host)).toBe(1);
    expect(failing.ran).toEqual(['apt-get update']);
    expect(failing.said[1]).toBe(
      'apt-get did not install agent-loop-test-browser, agent-loop-test-store; see its output above, then run:\n  sudo apt-get install -y test-browser test-store',
    );
    const partial = machine(true, ['agent-loop-test-store']);
    expect(provide(programs, partial.host)).toBe(1);
    expect(partial.said[1]).toBe(
      'apt-get did not install agent-loop-test-browser; see its output above, then run:\n  sudo apt-get install -y test-browser',
    );
  });

  it('finds a program only where it is executable', () => {
    writeFileSync(path.join(bin, 'agent-loop-plain-file'), '');
    install('agent-loop-test-store');
    expect(whereIs('agent-loop-plain-file', bin)).toBeUndefined();
    expect(whereIs('agent-loop-test-store', bin)).toBe(path.join(bin, 'agent-loop-test-store'));
  });

  it("is npm test's pretest, and passes on this machine, silent, every program found", () => {
    expect(packageJson.scripts.pretest).toBe('ts-node --transpile-only spec/system-programs.ts');
    const run = spawnSync(
      process.execPath,
      [require.resolve('ts-node/dist/bin'), '--transpile-only', 'spec/system-programs.ts'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(SYSTEM_PROGRAMS.map(({ program }) => whereIs(program) !== undefined)).toEqual(
      SYSTEM_PROGRAMS.map(() => true),
    );
  }, 60_000);
});
