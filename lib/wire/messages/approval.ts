import type { Request } from 'express';
import { toolOutcomeText } from '../../tool-outcome';
import {
  answerOf,
  decideApproval,
  earlierDecision,
  type ApprovalDecision,
  type ApprovalReader,
} from '../../loop/approval-decision';
import { approvedCallId } from '../../loop/approval-token';
import { blocksOf, type MessageParam } from './request';
import type { ContentBlock } from './types';
import type { WireCall } from '../../loop/wire';

const toolUses = (message: MessageParam) => blocksOf(message.content).filter((block) => block.type === 'tool_use');

/** A call to the client's approval tool (arguments `{ tool, arguments, reason }`) as the tool_use block the client is shown. */
export function approvalUse(call: WireCall): ContentBlock {
  return { type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(String(call.arguments)) as unknown };
}

/** The approval tool uses of an assistant message that holds no other tool use, or undefined. */
function approvalUses(message: MessageParam, tool: string): ContentBlock[] | undefined {
  if (message.role !== 'assistant') return undefined;
  const uses = toolUses(message);
  return uses.length > 0 && uses.every((use) => use.name === tool && approvedCallId(use.id) !== undefined)
    ? uses
    : undefined;
}

function shown(use: ContentBlock): { tool: string; input: Record<string, unknown> } {
  const input = (use.input ?? {}) as { tool?: unknown; arguments?: unknown };
  return {
    tool: typeof input.tool === 'string' ? input.tool : 'the call',
    input:
      typeof input.arguments === 'object' && input.arguments !== null
        ? (input.arguments as Record<string, unknown>)
        : {},
  };
}

/** Where in `out` the assistant message is that made tool use `callId`; -1: nowhere. */
function holderOf(out: readonly MessageParam[], callId: string): number {
  for (let i = out.length - 1; i >= 0; i--)
    if (out[i].role === 'assistant' && toolUses(out[i]).some((block) => block.id === callId)) return i;
  return -1;
}

/** The model's tool_use, put back where the loop's record of it did not come back: a granted one as the person approved it. */
function modelUseFor(callId: string, use: ContentBlock, decision: ApprovalDecision | undefined): MessageParam {
  const asked =
    decision?.outcome === 'granted'
      ? { name: decision.tool, input: decision.arguments }
      : { name: shown(use).tool, input: shown(use).input };
  return { role: 'assistant', content: [{ type: 'tool_use', id: callId, ...asked }] };
}

/** An older approval, decided in an earlier request: the tool_result the model reads in its place. */
function decidedEarlier(callId: string, tool: string, result: ContentBlock | undefined): ContentBlock {
  const decided = answerOf(result?.content);
  const content = toolOutcomeText(earlierDecision(tool, decided));
  return decided.approved
    ? { type: 'tool_result', tool_use_id: callId, content }
    : { type: 'tool_result', tool_use_id: callId, content, is_error: true };
}

export interface SettledMessages {
  messages: MessageParam[];
  decisions: ApprovalDecision[];
}

/**
 * Messages' approval exchanges (the loop's `tool_use` of the approval tool, the client's `tool_result`) taken out,
 * as on chat completions: the latest decide now; an older one reads as what it decided, its `tool_result` beside the
 * turn's other results (Messages wants all of a turn's results in one user message). `undefined` when there is none.
 */
export function settleApprovalMessages(
  reader: ApprovalReader,
  req: Request,
  binding: string,
  messages: readonly MessageParam[],
): SettledMessages | undefined {
  const exchanges = messages.map((message) => approvalUses(message, reader.tool));
  if (!exchanges.some(Boolean)) return undefined;
  const latest = messages.reduce((last, message, i) => (message.role === 'assistant' ? i : last), -1);
  const approvalIds = new Set(exchanges.flatMap((uses) => (uses ?? []).map((use) => use.id)));
  const out: MessageParam[] = [];
  const decisions: ApprovalDecision[] = [];
  messages.forEach((message, i) => {
    const uses = exchanges[i];
    if (!uses) {
      const blocks = blocksOf(message.content);
      const kept =
        message.role === 'user'
          ? blocks.filter((block) => !(block.type === 'tool_result' && approvalIds.has(block.tool_use_id)))
          : blocks;
      if (kept.length > 0) out.push(kept.length === blocks.length ? message : { ...message, content: kept });
      return;
    }
    const results = new Map(
      blocksOf(messages[i + 1]?.content)
        .filter((block) => block.type === 'tool_result')
        .map((block) => [block.tool_use_id, block]),
    );
    const text = blocksOf(message.content).filter((block) => block.type === 'text');
    for (const use of uses) {
      const callId = approvedCallId(use.id) as string;
      const result = results.get(use.id);
      const decision =
        i === latest
          ? decideApproval(reader, req, binding, use.id as string, shown(use).tool, result && answerOf(result.content))
          : undefined;
      let at = holderOf(out, callId);
      if (at < 0) at = out.push(modelUseFor(callId, use, decision)) - 1;
      // the loop's text so far rode on the approval message; the model's own message gets it back
      if (text.length > 0 && !blocksOf(out[at].content).some((block) => block.type === 'text'))
        out[at] = { ...out[at], content: [...text, ...blocksOf(out[at].content)] };
      if (decision) {
        decisions.push(decision);
        continue;
      }
      const next = out[at + 1];
      const answer = decidedEarlier(callId, shown(use).tool, result);
      if (next?.role === 'user') out[at + 1] = { ...next, content: [...blocksOf(next.content), answer] };
      else out.splice(at + 1, 0, { role: 'user', content: [answer] });
    }
  });
  return { messages: out, decisions };
}
