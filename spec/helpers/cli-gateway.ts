import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { javascript } from './javascript';

const ROOT = path.join(__dirname, '..', '..');

/** One `agent-loop-gateway` process (lib/gateway/cli.ts as its JavaScript), its output kept. */
export interface CliRun {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

export function cliWith(env: Record<string, string>, ...args: string[]): CliRun {
  const child = spawn(process.execPath, [javascript('lib/gateway/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  const run: CliRun = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.stdout!.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

/** A gateway config file in a fresh temporary folder: an object as JSON, or a string as it is. */
export function configFile(config: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'agent-loop-cli-')), 'gateway.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

/** The URL the gateway prints once it listens; throws when it exits first. */
export async function listeningUrl(run: CliRun): Promise<string> {
  for (;;) {
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.stdout)?.[1];
    if (url) return url;
    if (run.child.exitCode !== null) throw new Error(`the CLI exited ${run.child.exitCode}: ${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops a gateway that still runs (SIGTERM, its drain) and waits for it to exit. */
export async function stopCli(run: CliRun | undefined): Promise<void> {
  if (run?.child.exitCode !== null || run.child.signalCode !== null) return;
  run.child.kill();
  await run.exited;
}
