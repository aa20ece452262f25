import type { Request } from 'express';
import type { ChatMessage, ToolCall } from '../../types';
import { toolOutcomeText } from '../../tool-outcome';
import {
  answerOf,
  approvedCall,
  decideApproval,
  earlierDecision,
  type ApprovalDecision,
  type ApprovalReader,
} from '../../loop/approval-decision';
import { approvedCallId } from '../../loop/approval-token';
import { callsIn } from './model-reply';

export interface SettledApprovals {
  /** the conversation with every approval exchange replaced by the model's own calls; the latest ones wait for `decisions` */
  messages: ChatMessage[];
  decisions: ApprovalDecision[];
}

/** What `{ tool, arguments }` an approval call showed the client; a call without them reads as 'the call'. */
function shown(call: ToolCall): { tool: string; arguments: Record<string, unknown> } {
  try {
    const args = JSON.parse(call.function.arguments) as { tool?: unknown; arguments?: unknown };
    const tool = typeof args.tool === 'string' ? args.tool : 'the call';
    return {
      tool,
      arguments:
        typeof args.arguments === 'object' && args.arguments !== null
          ? (args.arguments as Record<string, unknown>)
          : {},
    };
  } catch {
    return { tool: 'the call', arguments: {} };
  }
}

/** An approval exchange: an assistant message whose calls are all calls to the approval tool, with approval ids. */
function approvalCallsOf(message: ChatMessage, tool: string): ToolCall[] | undefined {
  const calls = callsIn(message);
  return calls.length > 0 &&
    calls.every((call) => call.function?.name === tool && approvedCallId(call.id) !== undefined)
    ? calls
    : undefined;
}

/** Where in `out` the assistant message is that made call `callId` and has no answer for it yet; -1: nowhere. */
function waitingHolder(out: ChatMessage[], callId: string): number {
  for (let i = out.length - 1; i >= 0; i--) {
    const message = out[i];
    if (message.role === 'tool' && message.tool_call_id === callId) return -1;
    if (callsIn(message).some((call) => call.id === callId)) return i;
  }
  return -1;
}

/**
 * The client's conversation with each approval exchange (the loop's call to the approval tool and the client's
 * answer) taken out, and the model's own call put back in its place: the latest exchange's calls are decided here
 * and answered by the loop (`decisions`); an older one, already decided, reads as what its answer decided.
 * `undefined` when there is no approval exchange (the common case).
 */
export function settleApprovals(
  reader: ApprovalReader,
  req: Request,
  binding: string,
  messages: readonly ChatMessage[],
): SettledApprovals | undefined {
  const exchanges = messages.map((message) =>
    message.role === 'assistant' ? approvalCallsOf(message, reader.tool) : undefined,
  );
  if (!exchanges.some(Boolean)) return undefined;
  const latest = messages.reduce((last, message, i) => (message.role === 'assistant' ? i : last), -1);
  const out: ChatMessage[] = [];
  const decisions: ApprovalDecision[] = [];
  const dropped = new Set<string>();
  messages.forEach((message, i) => {
    const calls = exchanges[i];
    if (message.role === 'tool' && dropped.has(message.tool_call_id as string)) return;
    if (!calls) return void out.push(message);
    const answers = new Map(
      messages
        .slice(i + 1)
        .filter((m) => m.role === 'tool')
        .map((m) => [m.tool_call_id, m]),
    );
    for (const call of calls) {
      dropped.add(call.id);
      const callId = approvedCallId(call.id) as string;
      const answer = answers.get(call.id);
      const decision =
        i === latest
          ? decideApproval(reader, req, binding, call.id, shown(call).tool, answer && answerOf(answer.content))
          : undefined;
      let at = waitingHolder(out, callId);
      if (at < 0) at = out.push(modelCallFor(callId, decision, call)) - 1;
      // the loop's text so far rode on the approval message; the model's own message gets it back
      if (typeof message.content === 'string' && message.content !== '' && (out[at].content ?? null) === null)
        out[at] = { ...out[at], content: message.content };
      if (decision) decisions.push(decision);
      else if (!messages.slice(i + 1).some((m) => m.role === 'tool' && m.tool_call_id === callId))
        out.push({
          role: 'tool',
          tool_call_id: callId,
          content: decidedEarlier(shown(call).tool, answers.get(call.id)),
        });
    }
  });
  return { messages: out, decisions };
}

/** The model's call, put back where the loop's record of it did not come back (its continuation did not open). */
function modelCallFor(callId: string, decision: ApprovalDecision | undefined, call: ToolCall): ChatMessage {
  const asked =
    decision?.outcome === 'granted'
      ? approvedCall(decision)
      : {
          id: callId,
          type: 'function' as const,
          function: { name: shown(call).tool, arguments: JSON.stringify(shown(call).arguments) },
        };
  return { role: 'assistant', content: null, tool_calls: [asked] };
}

/** An older approval, decided in an earlier request: what the model reads in its place. */
function decidedEarlier(tool: string, answer: ChatMessage | undefined): string {
  return toolOutcomeText(earlierDecision(tool, answerOf(answer?.content)));
}
