import type { TurnResult, WireCall } from './wire';
import type { PendingApproval } from '../person/approval';
import type { PendingInput } from '../person/input';
import type { Loop } from './context';
import { givenId } from './call-id';
import { toolOutcomeText, type ToolOutcome } from './tool-outcome';
import { runToolCall, type Resumed } from './tool-call';
import { RUN_CODE } from '../code-mode/declarations';
import { runCode } from '../code-mode/run-code';

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

/**
 * One tool call with its telemetry and, when verbose, its log line; `approved`: a person approved it; `resumed`: made
 * again with the person's answers to its tool's question.
 */
export async function watchedToolCall(
  loop: Loop,
  call: WireCall,
  turn: number,
  approved = false,
  resumed?: Resumed,
): Promise<ToolOutcome> {
  const started = performance.now();
  const { codeMode } = loop.binding;
  const program = codeMode !== undefined && call.name === RUN_CODE;
  const watch = loop.telemetry?.tool(call, program || loop.binding.catalog.hierarchy.has(call.name));
  const outcome = program
    ? await runCode(loop, call, codeMode, (nested) => watchedToolCall(loop, nested, turn))
    : await runToolCall(loop, call, watch, approved, resumed);
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
      loopId: loop.id,
      wire: loop.wire,
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
    if (outcome.kind === 'pending') pending.push({ callId: call.id, tool: call.name, ...outcome.approval });
    else if (outcome.kind === 'asks') pending.push({ callId: call.id, tool: call.name, ...outcome.input });
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
