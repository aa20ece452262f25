import type { Request } from 'express';
import type { ToolOutcome } from '../../loop/tool-outcome';
import {
  decideApproval,
  deniedFor,
  earlierDecision,
  type ApprovalReader,
  type ApprovalReply,
  type PersonDecision,
} from '../../person/approval-decision';
import { approvedCallId } from '../../person/approval';
import { decideInput } from '../../person/input-decision';
import { earlierInput } from '../../person/input-answer';
import { inputCallId } from '../../person/input';
import { askedCallId, shownCall, type Exchange, type ShownCall } from './approval-exchange';

/** An older approval that came back without its answer reads as denied. */
const UNANSWERED = deniedFor(undefined);

/**
 * Where a wire's approval exchanges sit in one follow-up's history, and how the model's calls and the earlier
 * decisions go back in, in the wire's shape: the rest of settling is the loop's (`settleExchanges`).
 */
export interface ApprovalHistory<Item> {
  readonly length: number;
  /** the approvals item `i` holds (the item is taken out), or undefined: item `i` is none */
  exchangesAt(i: number): readonly Exchange[] | undefined;
  /** item `i`, which is no exchange, without the answers to approvals it holds; undefined: nothing of it is left */
  kept(i: number): Item | undefined;
  /** where in `out` the model's own call `callId` is; -1: nowhere */
  holderOf(out: readonly Item[], callId: string): number;
  /** the model's call, put back where the loop's record of it did not come back; undefined: the upstream holds it */
  modelCall(callId: string, call: ShownCall): Item | undefined;
  /** the model's message `holder` with the loop's text, which rode on the exchange at `i`; undefined: as it is */
  withText?(holder: Item, i: number): Item | undefined;
  /** the model's call `callId`, held at `at` in `out`, answered by what its approval at `i` decided earlier */
  answerEarlier(out: Item[], at: number, callId: string, outcome: ToolOutcome, i: number): void;
}

/**
 * The history with each approval exchange taken out and the model's own call back in its place: a live one is
 * decided (`decide`: undefined leaves the decision for later), an older one reads as what its answer decided. One
 * pass over the history.
 */
export function settleExchanges<Item>(
  history: ApprovalHistory<Item>,
  decide: (reply: ApprovalReply) => PersonDecision | undefined,
): Item[] {
  const out: Item[] = [];
  const lastAsked = lastQuestions(history);
  for (let i = 0; i < history.length; i++) {
    const exchanges = history.exchangesAt(i);
    if (exchanges === undefined) {
      const kept = history.kept(i);
      if (kept !== undefined) out.push(kept);
      continue;
    }
    for (const { approvalId, shown, answer, given, live } of exchanges) {
      const callId = askedCallId(approvalId) as string;
      const call = shownCall(shown);
      const decision = live ? decide({ approvalId, shownTool: call.tool, answer, given }) : undefined;
      let at = history.holderOf(out, callId);
      if (at < 0) {
        const put = history.modelCall(
          callId,
          decision?.outcome === 'granted' || decision?.outcome === 'answered'
            ? { tool: decision.tool, arguments: decision.arguments }
            : call,
        );
        if (put !== undefined) at = out.push(put) - 1;
      }
      const texted = at < 0 ? undefined : history.withText?.(out[at], i);
      if (texted !== undefined) out[at] = texted;
      // a tool that asked later (again, or once its call was approved) waits for that question: its answer is the
      // call's
      if (live || (lastAsked.get(callId) ?? i) > i) continue;
      const earlier =
        approvedCallId(approvalId) !== undefined
          ? earlierDecision(call.tool, answer ?? UNANSWERED)
          : earlierInput(call.tool, given);
      history.answerEarlier(out, at, callId, earlier, i);
    }
  }
  return out;
}

/** Where each call's last question (of a tool's, not an approval) sits in the history. */
function lastQuestions<Item>(history: ApprovalHistory<Item>): Map<string, number> {
  const last = new Map<string, number>();
  for (let i = 0; i < history.length; i++)
    for (const { approvalId } of history.exchangesAt(i) ?? []) {
      const callId = inputCallId(approvalId);
      if (callId !== undefined) last.set(callId, i);
    }
  return last;
}

/** What one reply decides: an approval's, or the answer to a tool's question. */
export function decideReply(
  reader: ApprovalReader,
  req: Request,
  binding: string,
  reply: ApprovalReply,
): PersonDecision {
  const { approvalId, shownTool, answer, given } = reply;
  return reader.input && inputCallId(approvalId) !== undefined
    ? decideInput(reader.input, req, binding, approvalId, shownTool, given)
    : decideApproval(reader, req, binding, approvalId, shownTool, answer);
}

/** A follow-up's history settled, and what its live approvals decided; undefined: it holds no approval exchange. */
export function settleAndDecide<Item>(
  reader: ApprovalReader,
  req: Request,
  binding: string,
  history: ApprovalHistory<Item> | undefined,
): { items: Item[]; decisions: PersonDecision[] } | undefined {
  if (history === undefined) return undefined;
  const decisions: PersonDecision[] = [];
  const items = settleExchanges(history, (reply) => {
    const decision = decideReply(reader, req, binding, reply);
    decisions.push(decision);
    return decision;
  });
  return { items, decisions };
}
