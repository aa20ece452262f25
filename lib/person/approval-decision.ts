import type { Request } from 'express';
import type { WireCall } from '../loop/turn-result';
import { recordedDecisions, type AnswerLedger } from './ledger';
import { approvedCallId, type ApprovalTokens } from './approval';
import { APPROVAL, readRefusal, type ApprovalOutcome } from './question';
import type { ToolOutcome } from '../loop/tool-outcome';
import type { Unapproved } from './refusal';
import { isReplayLog, type ReplayLog } from '../code-mode/replay-log';
import type { InputDecision, InputReader } from './input-decision';
import { textOf } from '../telemetry/content';

/** What the client's latest approval answers decided, each for one call of the model's that waited. */
export type ApprovalDecision = (
  | { outcome: 'granted'; tool: string; callId: string; arguments: Record<string, unknown>; token: string }
  | {
      outcome: Exclude<ApprovalOutcome, 'asked' | 'granted'>;
      tool: string;
      callId: string;
      refusal: Unapproved;
      reason: string;
      token?: string;
    }
) & {
  /** the call is a program's nested call (code mode): the program resumes with the decision */
  program?: ReplayLog;
};

export interface ApprovalReader {
  /** the name of the tool a client declares to approve calls (chat completions, Messages) */
  tool: string;
  tokens: ApprovalTokens;
  ledger: AnswerLedger;
  /** where a tool's questions to the person are sealed and read back (`input`) */
  input?: InputReader;
}

/** What one answer of the client's decided: about an approval, or about a tool's question. */
export type PersonDecision = ApprovalDecision | InputDecision;

/** A person's answer as the wire gave it; undefined: no answer came for that approval. */
export type ApprovalAnswer = { approved: true } | { approved: false; reason: string };

/** A client's reply to one of this gateway's approvals, read. */
export interface ApprovalReply {
  approvalId: string;
  /** the tool the approval showed, to name in a refusal; the name in the approval's id is what runs */
  shownTool: string;
  answer: ApprovalAnswer | undefined;
  /** the answer's JSON (or its text), which a tool's question reads (MCP's `{ action, content }`) */
  given?: unknown;
}

/** A denial, with the client's reason trimmed, or none given. */
export const deniedFor = (reason: unknown): ApprovalAnswer => ({
  approved: false,
  reason: typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : 'no reason given',
});

/**
 * A tool result answering an approval call: `{ "approved": true }` approves; anything else denies, with its `reason`,
 * or the answer itself when it is not JSON.
 */
export function answerOf(content: unknown): ApprovalAnswer {
  const text = textOf(content).trim();
  try {
    const answer = JSON.parse(text) as { approved?: unknown; reason?: unknown } | null;
    if (answer?.approved === true) return { approved: true };
    if (typeof answer === 'object' && answer !== null) return deniedFor(answer.reason);
  } catch {
    // a plain-text answer is its own reason
  }
  return { approved: false, reason: text === '' ? 'no reason given' : text.slice(0, 500) };
}

/** What the model reads, in place of the call's result, for an approval decided in an earlier request. */
export function earlierDecision(tool: string, answer: ApprovalAnswer): ToolOutcome {
  return answer.approved
    ? { kind: 'approved_earlier', tool }
    : { kind: 'unapproved', tool, why: 'denied', reason: answer.reason };
}

/**
 * The answer to one approval the loop asked for, by the approval's id (`<call id>.ap1.<token>`). `shownTool`: the
 * tool the client was shown, to name in a refusal when the token does not open. Only what the token holds runs.
 */
export function decideApproval(
  reader: ApprovalReader,
  req: Request,
  binding: string,
  approvalId: string,
  shownTool: string,
  answer: ApprovalAnswer | undefined,
): ApprovalDecision {
  const callId = approvedCallId(approvalId) ?? approvalId;
  const read = reader.tokens.read(req, binding, approvalId);
  if ('failed' in read) return { tool: shownTool, callId, ...readRefusal(APPROVAL, read.failed, reader.tokens.ttlSec) };
  const { tool, arguments: args } = read.opened;
  const program = isReplayLog(read.opened.program) ? { program: read.opened.program } : {};
  if (answer === undefined)
    return {
      outcome: 'denied',
      tool,
      callId,
      refusal: { why: 'denied', reason: 'no answer came' },
      reason: 'no answer came',
      ...program,
    };
  if (answer.approved) return { outcome: 'granted', tool, callId, arguments: args, token: read.token, ...program };
  return {
    outcome: 'denied',
    tool,
    callId,
    refusal: { why: 'denied', reason: answer.reason },
    reason: answer.reason,
    token: read.token,
    ...program,
  };
}

export const isInputDecision = (decision: PersonDecision): decision is InputDecision =>
  decision.outcome === 'answered' || 'input' in decision;

/** The decisions once recorded, each in the ledger of its kind (approvals, questions). */
export async function recordedAnswers(
  reader: ApprovalReader,
  decisions: readonly PersonDecision[],
): Promise<PersonDecision[]> {
  const questions = decisions.filter(isInputDecision);
  const approvals = decisions.filter((decision): decision is ApprovalDecision => !isInputDecision(decision));
  const [approved, answered] = await Promise.all([
    recordedDecisions(reader.ledger, approvals),
    reader.input ? recordedDecisions(reader.input.ledger, questions, { input: true }) : questions,
  ]);
  return [...approved, ...answered];
}

/** The call a granted approval runs: the model's id and tool, with the arguments the person approved. */
export function approvedCall(decision: Extract<ApprovalDecision, { outcome: 'granted' }>): WireCall {
  return { id: decision.callId, name: decision.tool, arguments: JSON.stringify(decision.arguments), index: 0 };
}
