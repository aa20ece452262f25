import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json';
import { RUN_CODE } from './declarations';
import type { LoggedCall, NestedAnswer, ReplayLog } from '../person/question';

export type { LoggedCall, ReplayLog };

/** The most a program's log may weigh (its JSON) to be handed back: a bigger one is refused to the program itself. */
export const MAX_REPLAY_BYTES = 32 * 1024;

/** A program's arguments, the same however their keys are ordered, as a digest: the log holds no arguments. */
export function argumentsDigest(args: string): string {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    value = args;
  }
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

/** What a program's next nested call is: answered from the log, the call that waited, a live one, or a divergence. */
export type Step = { replayed: NestedAnswer } | { waited: true } | { live: true } | { diverged: string };

/** The readable reason a program that resumed called otherwise than it did before (nothing was run again). */
function divergence(n: number, was: LoggedCall, name: string): string {
  const now =
    was.name === name ? `'${name}' with other arguments than before` : `'${name}' where it had been '${was.name}'`;
  const rule = 'a program that resumes must make the same calls in the same order up to the one the person answered';
  return `${RUN_CODE}: when the program resumed, its call ${n + 1} was ${now}; nothing ran again (${rule})`;
}

/** A program's nested calls as it runs: a fresh program's, or one resuming `from` a log, each checked against it. */
export class ProgramRecord {
  readonly calls: LoggedCall[];
  private made = 0;

  constructor(
    readonly code: string,
    private readonly from?: ReplayLog,
  ) {
    this.calls = from ? from.calls.map((call) => ({ ...call })) : [];
  }

  /** the next call the program makes (its number and what it is) */
  next(name: string, args: string): { n: number; step: Step } {
    const n = this.made++;
    const digest = argumentsDigest(args);
    const was = this.from?.calls[n];
    if (was === undefined) {
      this.calls[n] = { name, args: digest };
      return { n, step: { live: true } };
    }
    if (was.name !== name || was.args !== digest) return { n, step: { diverged: divergence(n, was, name) } };
    if (n === this.from?.waiting) return { n, step: { waited: true } };
    return { n, step: was.answer === undefined ? { live: true } : { replayed: was.answer } };
  }

  answered(n: number, answer: NestedAnswer): void {
    this.calls[n] = { ...this.calls[n], answer };
  }

  /** the log to hand back while call `waiting` waits for the person; undefined when it is too large to */
  handBack(waiting: number): ReplayLog | undefined {
    const log: ReplayLog = {
      code: this.code,
      calls: this.calls.map((call) => call ?? { name: '', args: '' }),
      waiting,
    };
    return Buffer.byteLength(JSON.stringify(log)) > MAX_REPLAY_BYTES ? undefined : log;
  }
}

/** A log as a token gave it back: sealed by this gateway, so only its shape is checked. */
export function isReplayLog(value: unknown): value is ReplayLog {
  const log = value as Partial<ReplayLog> | undefined;
  return (
    typeof log?.code === 'string' &&
    Array.isArray(log.calls) &&
    Number.isInteger(log.waiting) &&
    log.calls[log.waiting as number] !== undefined
  );
}
