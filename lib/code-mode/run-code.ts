import { toolErrorText, toolOutcomeText, type ToolOutcome } from '../loop/tool-outcome';
import { truncateUtf8 } from '../trellis/result';
import type { Loop } from '../loop/context';
import { callArguments } from '../loop/arguments';
import type { WireCall } from '../loop/wire';
import type { CodeModeConfig } from './options';
import { RUN_CODE } from './declarations';
import { runProgram, type NestedAnswer, type ProgramEnd, type ProgramProblem } from './sandbox';

/** A tool's text as the program reads it: parsed when it is JSON, else the text itself. */
function parsedText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A nested call's outcome as the program sees it: its value, or the error it throws with the seed's text. */
export function nestedAnswer(outcome: ToolOutcome, tool: string): NestedAnswer {
  if (outcome.kind === 'ok') return { value: outcome.structured ?? parsedText(outcome.text) };
  if (outcome.kind === 'pending')
    return { error: toolErrorText(`'${tool}' needs approval, which code mode cannot ask for yet`) };
  return { error: toolOutcomeText(outcome) };
}

function problemText(problem: ProgramProblem, limits: CodeModeConfig): string {
  switch (problem.kind) {
    case 'syntax':
      return `${RUN_CODE}: syntax error${problem.line ? ` on line ${problem.line}` : ''}: ${problem.message}`;
    case 'threw':
      return `${RUN_CODE}: the program threw ${problem.name}${problem.line ? ` on line ${problem.line}` : ''}: ${problem.message}`;
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

/**
 * One `run_code` call: the program runs in the sandbox, and each `tools.<name>(args)` in it is run by `nested` as a
 * tool call of the loop, every guard applying; a failure is thrown into the program with the text the model would read.
 */
export async function runCode(
  loop: Loop,
  call: WireCall,
  limits: CodeModeConfig,
  nested: (call: WireCall) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const parsed = callArguments(RUN_CODE, call);
  if ('invalid' in parsed) return parsed.invalid;
  const { code } = parsed.arguments;
  if (typeof code !== 'string')
    return { kind: 'tool_error', text: toolErrorText(`${RUN_CODE} needs { code: string }`) };
  let count = 0;
  const end = await runProgram(
    code,
    limits,
    async (name, args) => {
      if (name === RUN_CODE) return { error: toolErrorText(`a program cannot call ${RUN_CODE}`) };
      const outcome = await nested({ id: `${call.id}_${count++}`, name, arguments: args, index: 0 });
      if (outcome.kind !== 'pending') loop.stats.toolCalls++;
      return nestedAnswer(outcome, name);
    },
    loop.signal,
  ).catch((error: Error): ProgramEnd => ({ ok: false, problem: { kind: 'crashed', message: error.message }, log: [] }));
  return programOutcome(end, limits, loop.config.maxToolResultBytes);
}
