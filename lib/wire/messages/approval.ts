import { toolOutcomeText, type ToolOutcome } from '../../loop/tool-outcome';
import { asksPerson, answeredCall, type PersonTools } from '../kit/approval-exchange';
import type { ApprovalHistory } from '../kit/approval-settle';
import { settledIn } from '../kit/history';
import { allAsking, answerBeside, lastIn, withoutAnswers, type PartsShape } from '../kit/approval-parts';
import { isObject } from '../../shared/fields';
import { blocksOf, type MessageParam } from './request';
import type { ContentBlock } from './types';
import type { WireCall } from '../../loop/wire';

const toolUses = (message: MessageParam) => blocksOf(message.content).filter((block) => block.type === 'tool_use');

/**
 * A call to the client's approval tool (arguments `{ tool, arguments, reason }`) as the tool_use block the client is
 * shown.
 */
export function approvalUse(call: WireCall): ContentBlock {
  return { type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(String(call.arguments)) as unknown };
}

/**
 * The tool uses asking the person (approvals, a tool's questions) of an assistant message that holds no other, or
 * undefined.
 */
function approvalUses(message: MessageParam, tools: PersonTools): ContentBlock[] | undefined {
  if (message.role !== 'assistant') return undefined;
  return allAsking(toolUses(message), (use) => asksPerson(use.name, use.id, tools));
}

const blocks: PartsShape<MessageParam, ContentBlock> = {
  partsOf: (message) => blocksOf(message?.content),
  withParts: (message, content) => (message ? { ...message, content } : { role: 'user', content }),
  roleOf: (message) => message.role,
  user: 'user',
};

/** Where in `out` the assistant message is that made tool use `callId`; -1: nowhere. */
function holderOf(out: readonly MessageParam[], callId: string): number {
  for (let i = out.length - 1; i >= 0; i--)
    if (out[i].role === 'assistant' && toolUses(out[i]).some((block) => block.id === callId)) return i;
  return -1;
}

/**
 * Messages' approval exchanges: an assistant message of `tool_use` blocks of the approval tool, the client's
 * `tool_result` blocks answering them in the next message. The latest assistant message's decide now; an older
 * one's `tool_result` goes beside the turn's other results (Messages wants all of a turn's results in one user
 * message).
 */
function messagesApprovals(
  messages: readonly MessageParam[],
  tools: PersonTools,
): ApprovalHistory<MessageParam> | undefined {
  const asked = messages.map((message) => approvalUses(message, tools));
  if (!asked.some(Boolean)) return undefined;
  const latest = lastIn(messages, 'assistant');
  const approvalIds = new Set(asked.flatMap((uses) => (uses ?? []).map((use) => use.id)));
  const lastResult = new Map<unknown, number>();
  messages.forEach((message, i) =>
    blocksOf(message.content).forEach((block) => block.type === 'tool_result' && lastResult.set(block.tool_use_id, i)),
  );
  const resultsAfter = (i: number) =>
    new Map(
      blocksOf(messages[i + 1]?.content)
        .filter((block) => block.type === 'tool_result')
        .map((block) => [block.tool_use_id, block]),
    );
  return {
    length: messages.length,
    exchangesAt: (i) => {
      const results = asked[i] && resultsAfter(i);
      return asked[i]?.map((use) =>
        answeredCall(use.id as string, isObject(use.input) ? use.input : {}, results?.get(use.id), i === latest),
      );
    },
    kept: (i) =>
      withoutAnswers(
        messages[i],
        blocks,
        (block) => block.type === 'tool_result' && approvalIds.has(block.tool_use_id),
      ),
    holderOf,
    modelCall: (callId, call) => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id: callId, name: call.tool, input: call.arguments }],
    }),
    // the loop's text so far rode on the approval message; the model's own message gets it back
    withText: (holder, i) => withTextOf(messages[i], holder),
    answerEarlier: (out, at, callId, outcome, i) => {
      // a later message carried its result (the loop's own work of a later request)
      if ((lastResult.get(callId) ?? -1) > i) return;
      answerBeside(out, at, earlierResult(callId, outcome), blocks);
    },
  };
}

/** The model's own message `holder` with the text the approval message carried, or undefined when it needs none. */
function withTextOf(approval: MessageParam, holder: MessageParam): MessageParam | undefined {
  const text = blocksOf(approval.content).filter((block) => block.type === 'text');
  return text.length > 0 && !blocksOf(holder.content).some((block) => block.type === 'text')
    ? { ...holder, content: [...text, ...blocksOf(holder.content)] }
    : undefined;
}

/** What an older approval decided, as the `tool_result` of the call it was about. */
function earlierResult(callId: string, outcome: ToolOutcome): ContentBlock {
  const content = toolOutcomeText(outcome);
  return outcome.kind === 'approved_earlier'
    ? { type: 'tool_result', tool_use_id: callId, content }
    : { type: 'tool_result', tool_use_id: callId, content, is_error: true };
}

/**
 * Messages' approval exchanges (the loop's `tool_use` of the approval tool, the client's `tool_result`) taken out,
 * as on chat completions: the latest decide now; an older one reads as what it decided. `undefined` when there is none.
 */
export const settleApprovals = settledIn('messages', messagesApprovals);
