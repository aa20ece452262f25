import type { JudgeDecision } from '../judge/runner';
import { redacted } from '../shared/redact';
import { TimedOut, withinTimeout } from '../shared/signals';
import { TOOL_SEARCH } from '../tool-search/tool-search-tool';
import type { ToolOutcome } from './tool-outcome';
import { resultImages, resultText } from '../trellis/result';
import type {
  CallToolResult,
  InputAnswers,
  JudgeContext,
  JudgeInput,
  JudgeSurface,
  ToolProgress,
  ToolTask,
} from '../types';
import { askedInput } from '../person/input';
import type { WireCall } from './wire';
import { MAX_APPROVAL_ARGUMENTS_BYTES, requiredApproval } from '../person/approval';
import { callArguments } from './arguments';
import type { ToolWatch } from '../telemetry/loop-telemetry';
import type { Loop } from './context';
import { turnRequest } from './turn-body';
import { ConsentRequired } from '../trellis/oauth/consent';

async function review(
  loop: Loop,
  surface: JudgeSurface,
  tool: string,
  args: Record<string, unknown>,
  approved: boolean,
  result?: string,
): Promise<JudgeDecision> {
  if (!loop.judge) return { blocked: false };
  const decision = await loop.judge.review(
    {
      surface,
      wire: loop.wire,
      binding: loop.binding.name,
      tool,
      arguments: args,
      annotations: loop.binding.catalog.annotations(tool),
      ...(surface === 'tool_call' ? { messages: loop.conversation.items as JudgeInput['messages'] } : { result }),
      ...(approved ? { approved } : {}),
    },
    {
      signal: loop.signal,
      req: loop.req,
      loopId: loop.id,
      logger: loop.logger,
      // the judge's wire is the judge's contract's: its reader checked the reply is what `complete` promises
      complete: (body, signal) =>
        loop.judgeCompletion(turnRequest(body), signal) as ReturnType<JudgeContext['complete']>,
    },
  );
  if (decision.blocked) loop.stats.blocked++;
  return decision;
}

/** A call the judge or the binding asks a person about waits for the client's approval, if this client can give one. */
function approvalStep(
  loop: Loop,
  tool: string,
  args: Record<string, unknown>,
  ask: string | undefined,
): ToolOutcome | undefined {
  const reason = ask ?? requiredApproval(loop.binding.requireApproval, loop.binding.name, tool);
  if (reason === undefined) return undefined;
  if (loop.approvalTool === undefined) return { kind: 'unapproved', tool, why: 'cannot_ask' };
  if (Buffer.byteLength(JSON.stringify(args)) > MAX_APPROVAL_ARGUMENTS_BYTES)
    return { kind: 'unapproved', tool, why: 'arguments_too_long', maxBytes: MAX_APPROVAL_ARGUMENTS_BYTES };
  return { kind: 'pending', approval: { arguments: args, reason } };
}

/** Who hears of a call's MCP task: the admin record and a streaming client; undefined when neither does. */
function taskListener(loop: Loop, tool: string, watch: ToolWatch | undefined): ((task: ToolTask) => void) | undefined {
  if (watch?.task === undefined && loop.onToolNote === undefined) return undefined;
  return function onTask(task) {
    watch?.task?.(task);
    loop.onToolNote?.(tool, { task });
  };
}

/** A call made again with the person's answers to the question its tool asked (`round`: that question's). */
export interface Resumed {
  input: InputAnswers;
  round: number;
}

/** The call to the trellis, with the loop's listeners for progress and tasks, and a resumed call's answers. */
function trellisCall(loop: Loop, tool: string, args: Record<string, unknown>, watch?: ToolWatch, resumed?: Resumed) {
  const { trellis, resetTimeoutOnProgress } = loop.binding;
  // progress is asked of the server only when something uses it
  const listens = resetTimeoutOnProgress || loop.onToolProgress !== undefined;
  const onTask = taskListener(loop, tool, watch);
  return function callTrellis(signal: AbortSignal, extend: () => void) {
    function onProgress(progress: ToolProgress) {
      if (resetTimeoutOnProgress) extend();
      loop.onToolProgress?.(tool, progress);
    }
    return trellis.callTool(tool, args, {
      signal,
      headers: loop.req.headers,
      ...(listens ? { onProgress } : {}),
      ...(onTask ? { onTask } : {}),
      ...(watch?.meta ? { meta: watch.meta } : {}),
      ...(resumed ? { input: resumed.input } : {}),
      inputTtlSec: loop.config.input.ttlSec,
    });
  };
}

/** What the model reads of a result the judge let through: its text (or the judge's), images, structured content. */
function outcomeOf(loop: Loop, result: CallToolResult, text: string, rewritten: string | undefined): ToolOutcome {
  const images = loop.config.passImages ? resultImages(result) : [];
  return {
    kind: result.isError ? 'tool_error' : 'ok',
    text: rewritten ?? text,
    ...(images.length > 0 ? { images } : {}),
    ...(result.structuredContent !== undefined && rewritten === undefined && !result.isError
      ? { structured: result.structuredContent }
      : {}),
  };
}

/**
 * One tool call, from the model's request to the text the model reads. Deterministic checks (known tool,
 * arguments, hierarchy gate, repeats) come before the judge, so the judge is never asked about a call that cannot run;
 * then, when a person must approve the call, it waits (`pending`). `approved`: a person did; the judge is told.
 * A tool that asks the person for input waits for them too (`asks`); `resumed`: made again with their answers.
 * Never throws: every failure is a readable result.
 */
export async function runToolCall(
  loop: Loop,
  call: WireCall,
  watch?: ToolWatch,
  approved = false,
  resumed?: Resumed,
): Promise<ToolOutcome> {
  const { catalog, trellis } = loop.binding;
  const { hierarchy } = catalog;
  const tool = call.name;
  const search = loop.toolSearch;
  // a tool held back runs nothing until a search loaded it; tool_search itself is the loop's to answer
  if (search?.holds(tool)) return { kind: 'invalid', tool, why: 'not_loaded' };
  const searches = search !== undefined && tool === TOOL_SEARCH;
  if (!searches && !hierarchy.has(tool)) return catalog.unknownTool(tool);
  const parsed = callArguments(tool, call);
  if ('invalid' in parsed) return parsed.invalid;
  if (searches) return search.search(parsed.arguments);
  const refusal = hierarchy.gate(tool, loop.succeeded);
  if (refusal) return refusal;
  const repeated = loop.repeats.refusal(tool, parsed.arguments);
  if (repeated) {
    loop.stats.repeated++;
    loop.logger.warn('agent-loop refused a repeated tool call', { ...loop.logFields, tool });
    return repeated;
  }

  const before = await review(loop, 'tool_call', tool, parsed.arguments, approved);
  if (before.blocked) return { kind: 'blocked', reason: before.reason };
  const args = before.arguments ?? parsed.arguments;
  const waits = approved || resumed ? undefined : approvalStep(loop, tool, args, before.ask);
  if (waits) return waits;

  const toolTimeoutSec = loop.binding.toolTimeouts?.[tool] ?? loop.binding.toolTimeoutSec;
  let result: CallToolResult;
  try {
    watch?.reached(trellis);
    const call = trellisCall(loop, tool, args, watch, resumed);
    result = await withinTimeout(
      loop.signal,
      toolTimeoutSec,
      watch ? (signal, extend) => watch.within(() => call(signal, extend)) : call,
    );
  } catch (error) {
    if (error instanceof TimedOut) return { kind: 'timeout', tool, seconds: toolTimeoutSec };
    if (error instanceof ConsentRequired) loop.consent ??= error;
    return { kind: 'transport', reason: redacted((error as Error)?.message ?? String(error)) };
  }
  if (result.inputRequired)
    return askedInput(loop, tool, args, result.inputRequired, (resumed?.round ?? 0) + 1, (question) =>
      review(loop, 'context', tool, args, approved, question),
    );
  const text = resultText(result, loop.config.maxToolResultBytes, loop.config.passImages);
  const after = await review(loop, 'context', tool, args, approved, text);
  if (after.blocked) return { kind: 'blocked', reason: after.reason };
  const outcome = outcomeOf(loop, result, text, after.result);
  // the kind, never the text, says the tool ran well: a result may well begin with 'tool error:' or '⛔'
  if (outcome.kind === 'ok') loop.succeeded.add(tool);
  return outcome;
}
