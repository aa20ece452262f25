import type { ChatMessage, ToolCall } from '../types';
import type { PendingApproval } from './approval';
import type { Loop } from './context';
import { givenId } from './call-id';
import { callsIn } from './model-reply';
import { runToolCall, type ToolOutcome } from './tool-call';

/**
 * Chat Completions' tool messages carry text only, so the images the tools returned (`passImages`) follow them
 * in one user message of image parts, each introduced by the call it came from.
 */
function imageMessage(calls: ToolCall[], outcomes: ToolOutcome[]): ChatMessage | undefined {
  const parts = calls.flatMap((call, i) =>
    (outcomes[i].images ?? []).flatMap(({ mimeType, data }) => [
      { type: 'text', text: `Image returned by '${call.function?.name}' (${call.id}):` },
      { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } },
    ]),
  );
  return parts.length > 0 ? { role: 'user', content: parts } : undefined;
}

function calledIds(messages: ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) for (const call of callsIn(message)) ids.add(call.id);
  return ids;
}

/**
 * The turn's calls as they go into the conversation: a call without an id, or with one the conversation already
 * used (the model repeated an id), gets one of the loop's (in the model's own id form, else `call_<loop>_<turn>_<n>`),
 * so every call has exactly one answer.
 */
function withOwnIds(loop: Loop, calls: ToolCall[], turn: number): ToolCall[] {
  const used = calledIds(loop.messages);
  const like = calls.find((call) => call.id)?.id ?? [...used].at(-1);
  return calls.map((call, i) => {
    const own = call.id && !used.has(call.id) ? call : { ...call, id: givenId(like, `call_${loop.id}_${turn}_${i}`, used) };
    used.add(own.id);
    return own;
  });
}

/** One tool call with its telemetry and, when verbose, its log line; `approved`: a person approved it. */
export async function watchedToolCall(loop: Loop, call: ToolCall, turn: number, approved = false): Promise<ToolOutcome> {
  const started = performance.now();
  const watch = loop.telemetry?.tool(call, loop.binding.catalog.hierarchy.has(call.function?.name));
  const outcome = await runToolCall(loop, call, watch, approved);
  watch?.ended(outcome);
  if (loop.verbose) {
    loop.logger.info('agent-loop tool call', {
      loopId: loop.id,
      binding: loop.binding.name,
      turn,
      tool: call.function?.name,
      outcome: outcome.kind,
      durationMs: Math.round(performance.now() - started),
    });
  }
  return outcome;
}

/**
 * One turn's tool calls: only the first `maxToolCallsPerTurn` run, and the assistant message carried into the
 * next turn lists only those, so the model never believes a call ran when it did not. The calls run in
 * parallel; each gets exactly one `role: "tool"` answer, in call order, but those waiting for a person's approval:
 * they are returned, to be answered once the client decided.
 */
export async function runToolCalls(loop: Loop, assistant: ChatMessage, turn: number): Promise<PendingApproval[]> {
  const requested = assistant.tool_calls ?? [];
  const kept = withOwnIds(loop, requested.slice(0, loop.maxToolCallsPerTurn), turn);
  if (kept.length < requested.length) {
    loop.logger.warn('agent-loop tool calls over the per-turn cap were not run', {
      loopId: loop.id,
      turn,
      cap: loop.maxToolCallsPerTurn,
      dropped: requested.slice(kept.length).map((call) => call.function?.name),
    });
  }
  loop.messages.push({ ...assistant, tool_calls: kept });
  const outcomes = await Promise.all(kept.map((call) => watchedToolCall(loop, call, turn)));
  const pending: PendingApproval[] = [];
  kept.forEach((call, i) => {
    const { approval, text } = outcomes[i];
    if (approval) pending.push({ callId: call.id, tool: call.function.name, ...approval });
    else loop.messages.push({ role: 'tool', tool_call_id: call.id, content: text });
  });
  const images = imageMessage(kept, outcomes);
  if (images) loop.messages.push(images);
  loop.stats.toolCalls += kept.length - pending.length;
  return pending;
}
