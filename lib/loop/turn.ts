import type { TurnResult, WireCall } from './wire';
import type { PendingApproval } from '../person/approval';
import type { PendingInput } from '../person/input';
import type { Loop } from './context';
import { givenId } from './call-id';
import { toolOutcomeText, type ToolOutcome } from './tool-outcome';
import { runToolCall, type Resumed } from './tool-call';
import { RUN_CODE } from '../code-mode/declarations';
import { runCode } from '../code-mode/run-code';
import type { ReplayLog } from '../code-mode/replay-log';
import type { ToolWatch } from '../telemetry/loop-telemetry';

/**
 * The turn's calls as they go into the conversation: a call without an id, or with one the conversation already
 * used (the model repeated an id), gets one of the loop's (in the model's own id form, else `call_<loop>_<turn>_<n>`),
 * so every call has exactly one answer.
 */
function withOwnIds(loop: Loop, calls: WireCall[], turn: number): WireCall[] {
  const used = loop.conversation.takenIds();
  const like = calls.find((call) => call.id)?.id ?? [...used].at(-1);
  return calls.map((call, i) => {
    const own =
      call.id && !used.has(call.id) ? call : { ...call, id: givenId(like, `call_${loop.id}_${turn}_${i}`, used) };
    used.add(own.id);
    return own;
  });
}

/** A program resuming (`run_code`): its sealed log, and its waiting nested call made at last (`id`, `mode`: how). */
export interface ProgramResume {
  log: ReplayLog;
  answer(id: string, mode: CallMode): Promise<ToolOutcome>;
}

/**
 * How a call is made: `approved`: a person approved it; `resumed`: made again with the answers to its tool's question,
 * or a program resuming; `under`: the program whose nested call it is.
 */
export interface CallMode {
  approved?: boolean;
  resumed?: Resumed | ProgramResume;
  under?: ToolWatch;
}

/**
 * One tool call with its telemetry and, when verbose, its log line; a program's nested calls are calls of the loop
 * too, each with a span under the program's.
 */
export async function watchedToolCall(
  loop: Loop,
  call: WireCall,
  turn: number,
  { approved = false, resumed, under }: CallMode = {},
): Promise<ToolOutcome> {
  const started = performance.now();
  const { codeMode } = loop.binding;
  const program = codeMode !== undefined && call.name === RUN_CODE;
  const watch = loop.telemetry?.tool(call, program || loop.binding.catalog.hierarchy.has(call.name), under);
  const outcome = program
    ? await runCode(
        loop,
        call,
        codeMode,
        (nested) => watchedToolCall(loop, nested, turn, { under: watch }),
        resumed && 'log' in resumed
          ? { log: resumed.log, answer: (id) => resumed.answer(id, { under: watch }) }
          : undefined,
      )
    : await runToolCall(loop, call, watch, approved, resumed && 'input' in resumed ? resumed : undefined);
  watch?.ended({ kind: outcome.kind, text: toolOutcomeText(outcome) });
  if (loop.verbose) {
    loop.logger.info('agent-loop tool call', {
      ...loop.logFields,
      turn,
      tool: call.name,
      outcome: outcome.kind,
      durationMs: Math.round(performance.now() - started),
    });
  }
  return outcome;
}

/**
 * A program (the `run_code` call `callId`) once the person answered its nested call that waited: it runs again from
 * the start, its earlier calls answered from its log, and `answer` makes the call that waited (once).
 */
export function resumeProgram(
  loop: Loop,
  callId: string,
  log: ReplayLog,
  answer: ProgramResume['answer'],
): Promise<ToolOutcome> {
  const call: WireCall = { id: callId, name: RUN_CODE, arguments: JSON.stringify({ code: log.code }), index: 0 };
  return watchedToolCall(loop, call, 0, { resumed: { log, answer } });
}

/** What of a call waits for the person: its approval or its tool's question (a program's nested call's); else none. */
export function waitingOf(
  callId: string,
  tool: string,
  outcome: ToolOutcome,
): PendingApproval | PendingInput | undefined {
  if (outcome.kind === 'pending') {
    const { program } = outcome;
    const asked = program ? program.calls[program.waiting].name : tool;
    return { callId, tool: asked, ...outcome.approval, ...(program ? { program } : {}) };
  }
  if (outcome.kind === 'asks') {
    const { program } = outcome.input;
    return { callId, tool: program ? program.calls[program.waiting].name : tool, ...outcome.input };
  }
  return undefined;
}

/**
 * One turn's tool calls: only the first `maxToolCallsPerTurn` run, and the model's output carried into the
 * next turn lists only those, so the model never believes a call ran when it did not. The calls run in
 * parallel; each gets exactly one answer, in call order, but those waiting for a person's approval or input: they
 * are returned, to be answered once the client decided.
 */
export async function runToolCalls(
  loop: Loop,
  reply: TurnResult,
  turn: number,
): Promise<(PendingApproval | PendingInput)[]> {
  const requested = reply.calls;
  const kept = withOwnIds(loop, requested.slice(0, loop.settings.maxToolCallsPerTurn), turn);
  if (kept.length < requested.length) {
    loop.logger.warn('agent-loop tool calls over the per-turn cap were not run', {
      ...loop.logFields,
      turn,
      cap: loop.settings.maxToolCallsPerTurn,
      dropped: requested.slice(kept.length).map((call) => call.name),
    });
  }
  loop.conversation.addOutput(reply, kept);
  const outcomes = await Promise.all(kept.map((call) => watchedToolCall(loop, call, turn)));
  const pending: (PendingApproval | PendingInput)[] = [];
  const answered: WireCall[] = [];
  const results: ToolOutcome[] = [];
  kept.forEach((call, i) => {
    const outcome = outcomes[i];
    const waiting = waitingOf(call.id, call.name, outcome);
    if (waiting) pending.push(waiting);
    else {
      answered.push(call);
      results.push(outcome);
    }
  });
  loop.conversation.addOutcomes(answered, results);
  loop.toolSearch?.offerFound(loop.conversation, loop.clientTools);
  loop.stats.toolCalls += kept.length - pending.length;
  return pending;
}
