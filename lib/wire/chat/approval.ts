import type { ChatMessage, ToolCall } from './types';
import { toolOutcomeText } from '../../loop/tool-outcome';
import { asksPerson, answeredCall, shownIn, type PersonTools } from '../kit/approval-exchange';
import type { ApprovalHistory } from '../kit/approval-settle';
import { CallHolders } from '../kit/call-holders';
import { settledIn } from '../kit/history';
import { allAsking, lastIn } from '../kit/approval-parts';
import { callsIn } from './model-reply';

/** An approval exchange: an assistant message whose calls all ask the person (approvals, a tool's questions). */
function approvalCallsOf(message: ChatMessage, tools: PersonTools): ToolCall[] | undefined {
  return allAsking(callsIn(message), (call) => asksPerson(call.function?.name, call.id, tools));
}

/** The index of the last message answering each call id: the answers the client's follow-up holds. */
function lastAnswers(messages: readonly ChatMessage[]): Map<unknown, number> {
  const answers = new Map<unknown, number>();
  messages.forEach((message, i) => message.role === 'tool' && answers.set(message.tool_call_id, i));
  return answers;
}

/**
 * Chat completions' approval exchanges: an assistant message of calls to the approval tool, the client's `tool`
 * messages answering them. The latest assistant message's decide now.
 */
function chatApprovals(messages: readonly ChatMessage[], tools: PersonTools): ApprovalHistory<ChatMessage> | undefined {
  const asked = messages.map((message) => (message.role === 'assistant' ? approvalCallsOf(message, tools) : undefined));
  if (!asked.some(Boolean)) return undefined;
  const latest = lastIn(messages, 'assistant');
  const answered = lastAnswers(messages);
  const answeredAfter = (id: unknown, i: number) => (answered.get(id) ?? -1) > i;
  const askedAt = new Map<unknown, number>();
  asked.forEach((calls, i) => calls?.forEach((call) => askedAt.has(call.id) || askedAt.set(call.id, i)));
  const holders = new CallHolders<ChatMessage>(
    (message) => callsIn(message).map((call) => call.id),
    (message) => (message.role === 'tool' ? [message.tool_call_id as string] : []),
  );
  return {
    length: messages.length,
    exchangesAt: (i) =>
      asked[i]?.map((call) => {
        const reply = answeredAfter(call.id, i) ? messages[answered.get(call.id) as number] : undefined;
        return answeredCall(call.id, shownIn(call.function.arguments), reply, i === latest);
      }),
    kept: (i) => {
      const message = messages[i];
      // the client's answers to an approval asked before
      return message.role === 'tool' && (askedAt.get(message.tool_call_id) ?? i) < i ? undefined : message;
    },
    holderOf: (out, callId) => holders.holderOf(out, callId),
    modelCall: (callId, call) => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: callId, type: 'function', function: { name: call.tool, arguments: JSON.stringify(call.arguments) } },
      ],
    }),
    // the loop's text so far rode on the approval message; the model's own message gets it back
    withText: (holder, i) => {
      const { content } = messages[i];
      return typeof content === 'string' && content !== '' && (holder.content ?? null) === null
        ? { ...holder, content }
        : undefined;
    },
    answerEarlier: (out, _at, callId, outcome, i) => {
      if (!answeredAfter(callId, i))
        out.push({ role: 'tool', tool_call_id: callId, content: toolOutcomeText(outcome) });
    },
  };
}

/**
 * The client's conversation with each approval exchange (the loop's call to the approval tool and the client's
 * answer) taken out, and the model's own call put back in its place: the latest exchange's calls are decided here
 * and answered by the loop (`decisions`); an older one, already decided, reads as what its answer decided.
 * `undefined` when there is no approval exchange (the common case).
 */
export const settleApprovals = settledIn('messages', chatApprovals);
