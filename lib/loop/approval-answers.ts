import type { Request } from 'express';
import type { ChatMessage, ToolCall } from '../types';
import { notApprovedText } from './approval';
import { noteApproval, type ApprovalOutcome } from './approval-note';
import type { ApprovalLedger } from './approval-ledger';
import { approvedCallId, type ApprovalTokens } from './approval-token';
import type { Loop } from './context';
import { callsIn } from './model-reply';
import type { ToolOutcome } from './tool-call';
import { watchedToolCall } from './turn';
import { wireCallOf, type WireCall } from '../wire/wire';

/** What the client's latest approval answers decided, each for one call of the model's that waited. */
export type ApprovalDecision =
  | { outcome: 'granted'; tool: string; call: ToolCall }
  | { outcome: Exclude<ApprovalOutcome, 'asked' | 'granted'>; tool: string; callId: string; text: string; reason: string };

export interface SettledApprovals {
  /** the conversation with every approval exchange replaced by the model's own calls; the latest ones wait for `decisions` */
  messages: ChatMessage[];
  decisions: ApprovalDecision[];
}

export interface ApprovalReader {
  tool: string;
  tokens: ApprovalTokens;
  ledger: ApprovalLedger;
}

/** What `{ tool, arguments }` an approval call showed the client; a call without them reads as 'the call'. */
function shown(call: ToolCall): { tool: string; arguments: Record<string, unknown> } {
  try {
    const args = JSON.parse(call.function.arguments) as { tool?: unknown; arguments?: unknown };
    const tool = typeof args.tool === 'string' ? args.tool : 'the call';
    return { tool, arguments: typeof args.arguments === 'object' && args.arguments !== null ? (args.arguments as Record<string, unknown>) : {} };
  } catch {
    return { tool: 'the call', arguments: {} };
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

/** `{ "approved": true }` approves; anything else denies, with its `reason`, or the answer itself when it is not JSON. */
export function answerOf(content: unknown): { approved: true } | { approved: false; reason: string } {
  const text = textOf(content).trim();
  try {
    const answer = JSON.parse(text) as { approved?: unknown; reason?: unknown } | null;
    if (answer?.approved === true) return { approved: true };
    if (typeof answer === 'object' && answer !== null) return { approved: false, reason: typeof answer.reason === 'string' && answer.reason.trim() !== '' ? answer.reason.trim() : 'no reason given' };
  } catch {
    // a plain-text answer is its own reason
  }
  return { approved: false, reason: text === '' ? 'no reason given' : text.slice(0, 500) };
}

const REFUSALS = {
  expired: (tool: string, ttlSec: number) => `tool error: the approval of '${tool}' came after it expired (approvals last ${ttlSec}s); the call did not run: call it again to ask anew`,
  answered: (tool: string) => `tool error: the approval of '${tool}' was already answered; the call does not run again`,
  invalid: (tool: string) => `tool error: the approval of '${tool}' is not one this gateway asked for; the call did not run`,
};

function refused(outcome: 'expired' | 'refused', tool: string, callId: string, text: string, reason: string): ApprovalDecision {
  return { outcome, tool, callId, text, reason };
}

/** The client's answer to one approval call of its latest hand-back. */
function decide(reader: ApprovalReader, req: Request, binding: string, call: ToolCall, answer: ChatMessage | undefined): ApprovalDecision {
  const callId = approvedCallId(call.id) as string;
  const read = reader.tokens.read(req, binding, call.id);
  if ('failed' in read) {
    const { tool } = shown(call);
    if (read.failed === 'expired') return refused('expired', tool, callId, REFUSALS.expired(tool, reader.tokens.ttlSec), 'expired');
    return refused('refused', tool, callId, REFUSALS.invalid(tool), 'not an approval this gateway asked for');
  }
  const { call: asked, arguments: args } = read.opened;
  const tool = asked.function.name;
  if (answer === undefined) return { outcome: 'denied', tool, callId, text: notApprovedText(tool, 'no answer came'), reason: 'no answer came' };
  if (!reader.ledger.answer(read.token)) return refused('refused', tool, callId, REFUSALS.answered(tool), 'already answered');
  const decided = answerOf(answer.content);
  if (decided.approved) return { outcome: 'granted', tool, call: { ...asked, function: { ...asked.function, arguments: JSON.stringify(args) } } };
  return { outcome: 'denied', tool, callId, text: notApprovedText(tool, decided.reason), reason: decided.reason };
}

/** An approval exchange: an assistant message whose calls are all calls to the approval tool, with approval ids. */
function approvalCallsOf(message: ChatMessage, tool: string): ToolCall[] | undefined {
  const calls = callsIn(message);
  return calls.length > 0 && calls.every((call) => call.function?.name === tool && approvedCallId(call.id) !== undefined) ? calls : undefined;
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
export function settleApprovals(reader: ApprovalReader, req: Request, binding: string, messages: readonly ChatMessage[]): SettledApprovals | undefined {
  const exchanges = messages.map((message) => (message.role === 'assistant' ? approvalCallsOf(message, reader.tool) : undefined));
  if (!exchanges.some(Boolean)) return undefined;
  const latest = messages.reduce((last, message, i) => (message.role === 'assistant' ? i : last), -1);
  const out: ChatMessage[] = [];
  const decisions: ApprovalDecision[] = [];
  const dropped = new Set<string>();
  messages.forEach((message, i) => {
    const calls = exchanges[i];
    if (message.role === 'tool' && dropped.has(message.tool_call_id as string)) return;
    if (!calls) return void out.push(message);
    const answers = new Map(messages.slice(i + 1).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m]));
    for (const call of calls) {
      dropped.add(call.id);
      const callId = approvedCallId(call.id) as string;
      const decision = i === latest ? decide(reader, req, binding, call, answers.get(call.id)) : undefined;
      let at = waitingHolder(out, callId);
      if (at < 0) at = out.push(modelCallFor(callId, decision, call)) - 1;
      // the loop's text so far rode on the approval message; the model's own message gets it back
      if (typeof message.content === 'string' && message.content !== '' && (out[at].content ?? null) === null) out[at] = { ...out[at], content: message.content };
      if (decision) decisions.push(decision);
      else if (!messages.slice(i + 1).some((m) => m.role === 'tool' && m.tool_call_id === callId)) out.push({ role: 'tool', tool_call_id: callId, content: decidedEarlier(shown(call).tool, answers.get(call.id)) });
    }
  });
  return { messages: out, decisions };
}

/** The model's call, put back where the loop's record of it did not come back (its continuation did not open). */
function modelCallFor(callId: string, decision: ApprovalDecision | undefined, call: ToolCall): ChatMessage {
  const asked = decision?.outcome === 'granted' ? decision.call : { id: callId, type: 'function' as const, function: { name: shown(call).tool, arguments: JSON.stringify(shown(call).arguments) } };
  return { role: 'assistant', content: null, tool_calls: [{ ...asked, id: callId }] };
}

/** An older approval, decided in an earlier request: what the model reads in its place. */
function decidedEarlier(tool: string, answer: ChatMessage | undefined): string {
  const decided = answerOf(answer?.content);
  return decided.approved ? `[the result of '${tool}' is not kept: it ran in an earlier request, after a person approved it]` : notApprovedText(tool, decided.reason);
}

/** Answers the calls the client's approvals decided: an approved call runs (the judge told so), the others read why not. */
export async function answerApprovals(loop: Loop, decisions: readonly ApprovalDecision[]): Promise<void> {
  const answers = await Promise.all(
    decisions.map(async function answered(decision): Promise<{ call: WireCall; outcome: ToolOutcome }> {
      if (decision.outcome !== 'granted') {
        noteApproval(loop, decision.tool, decision.outcome, decision.reason);
        return { call: { id: decision.callId, name: decision.tool, arguments: undefined, index: 0 }, outcome: { kind: 'unapproved', text: decision.text } };
      }
      noteApproval(loop, decision.tool, 'granted');
      const call = wireCallOf(decision.call);
      return { call, outcome: await watchedToolCall(loop, call, 0, true) };
    }),
  );
  loop.conversation.addOutcomes(
    answers.map((answer) => answer.call),
    answers.map((answer) => answer.outcome),
  );
  loop.stats.toolCalls += decisions.filter((decision) => decision.outcome === 'granted').length;
}
