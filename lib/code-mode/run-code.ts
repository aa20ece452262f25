import { toolErrorText, toolOutcomeText, type ToolOutcome } from '../loop/tool-outcome';
import { truncateUtf8 } from '../trellis/result';
import type { Loop } from '../loop/context';
import { callArguments } from '../loop/arguments';
import type { WireCall } from '../loop/wire';
import type { CodeModeConfig } from './options';
import { RUN_CODE } from './declarations';
import { runProgram, type NestedAnswer, type ProgramEnd, type ProgramProblem } from './sandbox';
import { MAX_REPLAY_BYTES, ProgramRecord, type ReplayLog } from './replay-log';
import { linkedController } from '../shared/signals';

/** A tool's text as the program reads it: parsed when it is JSON, else the text itself. */
function parsedText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A nested call's outcome as the program sees it: its value, or the error it throws with the seed's text. */
function nestedAnswer(outcome: ToolOutcome): NestedAnswer {
  if (outcome.kind === 'ok') return { value: outcome.structured ?? parsedText(outcome.text) };
  return { error: toolOutcomeText(outcome) };
}

const onLine = (line: number | undefined) => (line ? ` on line ${line}` : '');

function problemText(problem: ProgramProblem, limits: CodeModeConfig): string {
  switch (problem.kind) {
    case 'syntax':
      return `${RUN_CODE}: syntax error${onLine(problem.line)}: ${problem.message}`;
    case 'threw':
      return `${RUN_CODE}: the program threw ${problem.name}${onLine(problem.line)}: ${problem.message}`;
    case 'deadline':
      return `${RUN_CODE}: the program ran past its deadline of ${limits.timeoutSec}s`;
    case 'memory':
      return `${RUN_CODE}: the program ran out of memory (its limit is ${limits.memoryMb} MiB)`;
    case 'too_many_calls':
      return `${RUN_CODE}: the program made more than ${limits.maxCalls} tool calls`;
    case 'never_settles':
      return `${RUN_CODE}: the program awaited a promise that never settles`;
    case 'cancelled':
      return `${RUN_CODE}: the program was stopped: the loop ended`;
    case 'crashed':
      return `${RUN_CODE}: the sandbox failed: ${problem.message}`;
  }
}

/**
 * What the model reads of a program: its return value and log, or what went wrong (and its log), cut as a tool result
 * is.
 */
export function programOutcome(end: ProgramEnd, limits: CodeModeConfig, maxBytes: number): ToolOutcome {
  if (end.ok)
    return { kind: 'ok', text: truncateUtf8(`{"return":${end.value},"log":${JSON.stringify(end.log)}}`, maxBytes) };
  const log = end.log.length > 0 ? `\nlog:\n${end.log.join('\n')}` : '';
  return { kind: 'tool_error', text: truncateUtf8(toolErrorText(problemText(end.problem, limits)) + log, maxBytes) };
}

/** Runs one nested call as a tool call of the loop. */
export type Nested = (call: WireCall) => Promise<ToolOutcome>;

/** A program resuming once the person answered: its sealed log, and the call that waited now answered (run once). */
export interface Resume {
  log: ReplayLog;
  answer(id: string): Promise<ToolOutcome>;
}

const never = () => new Promise<NestedAnswer>(() => {});

/** The outcome handing a waiting nested call to the person, with the program's log; undefined: the log is too large. */
function handBackOf(record: ProgramRecord, n: number, outcome: ToolOutcome): ToolOutcome | undefined {
  const program = record.handBack(n);
  if (program === undefined) return undefined;
  if (outcome.kind === 'pending') return { ...outcome, program };
  if (outcome.kind === 'asks') return { kind: 'asks', input: { ...outcome.input, program } };
  return undefined;
}

/**
 * A program's nested calls: answered from the log while it resumes (checked to be the same calls), else run by
 * `nested`; one that waits for the person stops the program once the calls in flight settled, and hands it back.
 */
function programCalls(loop: Loop, call: WireCall, record: ProgramRecord, nested: Nested, resume?: Resume) {
  const { controller: stopper, unlink } = linkedController(loop.signal);
  let inFlight = 0;
  const state: { stopping: boolean; handedBack?: ToolOutcome; diverged?: string; signIn?: string } = {
    stopping: false,
  };
  const stop = () => {
    state.stopping = true;
    if (inFlight === 0) stopper.abort();
  };
  async function callTool(name: string, args: string): Promise<NestedAnswer> {
    if (name === RUN_CODE) return { error: toolErrorText(`a program cannot call ${RUN_CODE}`) };
    if (state.stopping) return never();
    const { n, step } = record.next(name, args);
    if ('replayed' in step) {
      // a call that ran well before unlocks its children again, as it did then
      if ('value' in step.replayed) loop.succeeded.add(name);
      return step.replayed;
    }
    if ('diverged' in step) {
      state.diverged = step.diverged;
      stop();
      return never();
    }
    const id = `${call.id}_${n}`;
    inFlight++;
    const outcome = await (
      'waited' in step && resume ? resume.answer(id) : nested({ id, name, arguments: args, index: 0 })
    ).finally(() => inFlight--);
    if (loop.consent) {
      // the server needs the person to sign in: the loop answers with the consent, as for a direct call, and the
      // program stops here rather than go on without the call (the model's next message runs it again)
      state.signIn ??= name;
      stop();
      return never();
    }
    if (outcome.kind === 'pending' || outcome.kind === 'asks') {
      const handBack = state.handedBack ? undefined : handBackOf(record, n, outcome);
      if (handBack !== undefined || state.handedBack !== undefined) {
        state.handedBack ??= handBack;
        stop();
        return never();
      }
      return {
        error: toolErrorText(
          `${RUN_CODE}: '${name}' needs the person, but the program's log of its calls is too large to hand back ` +
            `(over ${MAX_REPLAY_BYTES} bytes)`,
        ),
      };
    }
    loop.stats.toolCalls++;
    const answer = nestedAnswer(outcome);
    record.answered(n, answer);
    if (state.stopping && inFlight === 0) stopper.abort();
    return answer;
  }
  return { callTool, signal: stopper.signal, state, done: unlink };
}

/**
 * One `run_code` call: the program runs in the sandbox, and each `tools.<name>(args)` in it is run by `nested` as a
 * tool call of the loop, every guard applying; a failure is thrown into the program with the text the model would read.
 * A call that needs the person hands the program back (`pending`, `asks`, its log sealed with it); `resume`: the
 * person answered, and the program runs again from the start, its earlier calls answered from the log.
 */
export async function runCode(
  loop: Loop,
  call: WireCall,
  limits: CodeModeConfig,
  nested: Nested,
  resume?: Resume,
): Promise<ToolOutcome> {
  let code = resume?.log.code;
  if (code === undefined) {
    const parsed = callArguments(RUN_CODE, call);
    if ('invalid' in parsed) return parsed.invalid;
    if (typeof parsed.arguments.code !== 'string')
      return { kind: 'tool_error', text: toolErrorText(`${RUN_CODE} needs { code: string }`) };
    code = parsed.arguments.code;
  }
  const calls = programCalls(loop, call, new ProgramRecord(code, resume?.log), nested, resume);
  const end = await runProgram(
    code,
    limits,
    calls.callTool,
    calls.signal,
    loop.onToolNote && ((line) => loop.onToolNote?.(RUN_CODE, { log: line })),
  )
    .catch((error: Error): ProgramEnd => ({ ok: false, problem: { kind: 'crashed', message: error.message }, log: [] }))
    .finally(calls.done);
  const { diverged, handedBack, signIn } = calls.state;
  if (diverged !== undefined) return { kind: 'tool_error', text: toolErrorText(diverged) };
  if (signIn !== undefined)
    return { kind: 'tool_error', text: toolErrorText(`${RUN_CODE}: '${signIn}' needs the person to sign in first`) };
  return handedBack ?? programOutcome(end, limits, loop.config.maxToolResultBytes);
}
