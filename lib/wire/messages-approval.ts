import type { Request } from 'express';
import { notApprovedText } from '../loop/approval';
import { answerOf, decideApproval, type ApprovalDecision, type ApprovalReader } from '../loop/approval-decision';
import { approvedCallId } from '../loop/approval-token';
import type { ContentBlock } from './messages-types';

interface Message {
  role: string;
  content: string | ContentBlock[];
  [key: string]: unknown;
}

const blocksOf = (message: Message): ContentBlock[] => (Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }]);
const toolUses = (message: Message) => blocksOf(message).filter((block) => block.type === 'tool_use');

/** The approval tool uses of an assistant message that holds no other tool use, or undefined. */
function approvalUses(message: Message, tool: string): ContentBlock[] | undefined {
  if (message.role !== 'assistant') return undefined;
  const uses = toolUses(message);
  return uses.length > 0 && uses.every((use) => use.name === tool && approvedCallId(use.id) !== undefined) ? uses : undefined;
}

function shown(use: ContentBlock): { tool: string; input: Record<string, unknown> } {
  const input = (use.input ?? {}) as { tool?: unknown; arguments?: unknown };
  return { tool: typeof input.tool === 'string' ? input.tool : 'the call', input: typeof input.arguments === 'object' && input.arguments !== null ? (input.arguments as Record<string, unknown>) : {} };
}

/** Where in `out` the assistant message is that made tool use `callId`; -1: nowhere. */
function holderOf(out: readonly Message[], callId: string): number {
  for (let i = out.length - 1; i >= 0; i--) if (out[i].role === 'assistant' && toolUses(out[i]).some((block) => block.id === callId)) return i;
  return -1;
}

export interface SettledMessages {
  messages: Message[];
  decisions: ApprovalDecision[];
}

/**
 * Messages' approval exchanges (the loop's `tool_use` of the approval tool, the client's `tool_result`) taken out,
 * as on chat completions: the latest decide now; an older one reads as what it decided, its `tool_result` beside the
 * turn's other results. `undefined` when there is none.
 */
export function settleApprovalMessages(reader: ApprovalReader, req: Request, binding: string, messages: readonly Message[]): SettledMessages | undefined {
  const exchanges = messages.map((message) => approvalUses(message, reader.tool));
  if (!exchanges.some(Boolean)) return undefined;
  const latest = messages.reduce((last, message, i) => (message.role === 'assistant' ? i : last), -1);
  const approvalIds = new Set(exchanges.flatMap((uses) => (uses ?? []).map((use) => use.id as string)));
  const out: Message[] = [];
  const decisions: ApprovalDecision[] = [];
  messages.forEach((message, i) => {
    const uses = exchanges[i];
    if (!uses) {
      const kept = message.role === 'user' ? blocksOf(message).filter((block) => !(block.type === 'tool_result' && approvalIds.has(block.tool_use_id as string))) : blocksOf(message);
      if (kept.length > 0) out.push(message.role === 'user' && kept.length !== blocksOf(message).length ? { ...message, content: kept } : message);
      return;
    }
    const results = new Map(blocksOf(messages[i + 1] ?? { role: 'user', content: [] }).filter((block) => block.type === 'tool_result').map((block) => [block.tool_use_id, block]));
    const text = blocksOf(message).filter((block) => block.type === 'text');
    for (const use of uses) {
      const callId = approvedCallId(use.id) as string;
      const result = results.get(use.id);
      let at = holderOf(out, callId);
      if (at < 0) at = out.push({ role: 'assistant', content: [{ type: 'tool_use', id: callId, name: shown(use).tool, input: shown(use).input }] }) - 1;
      if (text.length > 0 && !blocksOf(out[at]).some((block) => block.type === 'text')) out[at] = { ...out[at], content: [...text, ...blocksOf(out[at])] };
      if (i === latest) {
        decisions.push(decideApproval(reader, req, binding, use.id as string, shown(use).tool, result && answerOf(result.content)));
        continue;
      }
      const decided = answerOf(result?.content);
      const content = decided.approved ? `[the result of '${shown(use).tool}' is not kept: it ran in an earlier request, after a person approved it]` : notApprovedText(shown(use).tool, decided.reason);
      const answer: ContentBlock = { type: 'tool_result', tool_use_id: callId, content, ...(decided.approved ? {} : { is_error: true }) };
      const next = out[at + 1];
      if (next?.role === 'user') out[at + 1] = { ...next, content: [...blocksOf(next), answer] };
      else out.splice(at + 1, 0, { role: 'user', content: [answer] });
    }
  });
  return { messages: out, decisions };
}
