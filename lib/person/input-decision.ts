import type { Request } from 'express';
import type { ToolOutcome, Unapproved } from '../loop/tool-outcome';
import type { ApprovalLedger } from './ledger';
import type { Loop } from '../loop/context';
import type { PendingInput } from './input';
import { cancelDeclinedTask } from './declined-task';
import { inputAnswerOf, misfit } from './input-answer';
import { noteInput } from './input-note';
import type { Unanswered } from './input-refusal';
import { inputCallId, type InputTokens, type SealedInput } from './input-token';
import { resumeProgram, waitingOf, watchedToolCall, type CallMode } from '../loop/turn';
import type { PendingApproval } from './approval';
import { RUN_CODE } from '../code-mode/declarations';
import { isReplayLog } from '../code-mode/replay-log';
import type { WireCall } from '../loop/wire';

export interface InputReader {
  /** the name of the tool a client declares to put a tool's questions to the person */
  tool: string;
  maxRounds: number;
  tokens: InputTokens;
  ledger: ApprovalLedger;
}

/** What the client's answer to one of this gateway's questions decided: an answer to weigh, or a refusal. */
export type InputDecision =
  | {
      outcome: 'answered';
      tool: string;
      callId: string;
      arguments: Record<string, unknown>;
      token: string;
      sealed: SealedInput;
      given: unknown;
    }
  | {
      outcome: 'expired' | 'refused';
      input: true;
      tool: string;
      callId: string;
      refusal: Unapproved;
      reason: string;
      token?: string;
    };

/** The answer to one question the loop asked, by the question's id (`<call id>.in1.<token>`). */
export function decideInput(
  reader: InputReader,
  req: Request,
  binding: string,
  questionId: string,
  shownTool: string,
  given: unknown,
): InputDecision {
  const callId = inputCallId(questionId) ?? questionId;
  const read = reader.tokens.read(req, binding, questionId);
  if ('failed' in read)
    return read.failed === 'expired'
      ? {
          outcome: 'expired',
          input: true,
          tool: shownTool,
          callId,
          refusal: { why: 'expired', ttlSec: reader.tokens.ttlSec },
          reason: 'expired',
        }
      : {
          outcome: 'refused',
          input: true,
          tool: shownTool,
          callId,
          refusal: { why: 'not_asked' },
          reason: 'not a question this gateway asked',
        };
  const sealed = read.opened;
  return {
    outcome: 'answered',
    tool: sealed.tool,
    callId,
    arguments: sealed.arguments,
    token: read.token,
    sealed,
    given,
  };
}

type Settled = { outcome: ToolOutcome } | { pending: PendingApproval | PendingInput };

/**
 * The answers to every question of one call, read together: the call runs again only when each was accepted and fits.
 */
function responsesOf(
  loop: Loop,
  tool: string,
  answered: Extract<InputDecision, { outcome: 'answered' }>[],
): Record<string, unknown> | Unanswered {
  const [{ sealed }] = answered;
  const byKey = new Map(
    answered.filter((one) => one.sealed.group === sealed.group).map((one) => [one.sealed.key, one]),
  );
  const responses: Record<string, unknown> = { ...sealed.answered };
  for (const key of sealed.keys) {
    const one = byKey.get(key);
    const answer = inputAnswerOf(one?.given);
    if (answer.action !== 'accept') {
      noteInput(loop, tool, answer.action === 'decline' ? 'declined' : 'cancelled', { question: one?.sealed.question });
      return { why: answer.action === 'decline' ? 'declined' : 'cancelled' };
    }
    const wrong = misfit(one!.sealed.question, answer.content);
    if (wrong) {
      noteInput(loop, tool, 'refused', { question: one!.sealed.question, reason: `'${wrong.field}' ${wrong.problem}` });
      return wrong;
    }
    noteInput(loop, tool, 'answered', { question: one!.sealed.question });
    responses[key] = one!.sealed.question.mode === 'form' ? answer : { action: 'accept' };
  }
  return responses;
}

/** One call's questions, answered: its tool runs again with the answers, or the model reads why not. */
async function settledOutcome(
  loop: Loop,
  decisions: InputDecision[],
  id: string,
  mode: CallMode,
): Promise<ToolOutcome> {
  const { tool } = decisions[0];
  const refused = decisions.find(
    (decision): decision is Extract<InputDecision, { input: true }> => decision.outcome !== 'answered',
  );
  if (refused) {
    noteInput(loop, tool, 'refused', { reason: refused.reason });
    return { kind: 'unanswered', tool: refused.tool, ...(refused.refusal as Unanswered) };
  }
  const answered = decisions as Extract<InputDecision, { outcome: 'answered' }>[];
  const { sealed } = answered[0];
  const responses = responsesOf(loop, tool, answered);
  if ('why' in responses && typeof responses.why === 'string') {
    const turnedDown = responses.why === 'declined' || responses.why === 'cancelled';
    if (turnedDown && sealed.taskId !== undefined) await cancelDeclinedTask(loop, sealed.taskId);
    return { kind: 'unanswered', tool, ...(responses as Unanswered) };
  }
  const call: WireCall = { id, name: tool, arguments: JSON.stringify(sealed.arguments), index: 0 };
  const input = {
    inputResponses: responses,
    ...(sealed.requestState === undefined ? {} : { requestState: sealed.requestState }),
    ...(sealed.taskId === undefined ? {} : { taskId: sealed.taskId }),
  };
  return watchedToolCall(loop, call, 0, { ...mode, approved: true, resumed: { input, round: sealed.round } });
}

/** One call's questions settled: what the model reads, or the call waits again (a program resumes with the answer). */
async function settleCall(loop: Loop, decisions: InputDecision[]): Promise<Settled> {
  const [first] = decisions;
  const { callId, tool } = first;
  const program = first.outcome === 'answered' && isReplayLog(first.sealed.program) ? first.sealed.program : undefined;
  const outcome = program
    ? await resumeProgram(loop, callId, program, (id, mode) => settledOutcome(loop, decisions, id, mode))
    : await settledOutcome(loop, decisions, callId, {});
  const waiting = waitingOf(callId, tool, outcome);
  return waiting ? { pending: waiting } : { outcome };
}

/**
 * Each waiting call whose questions the client answered (grouped by call): run again with the answers, or read why
 * not. A tool that asks again (another round) waits again: those calls come back, to be asked.
 */
export async function answerInputs(
  loop: Loop,
  decisions: readonly InputDecision[],
): Promise<{ calls: WireCall[]; outcomes: ToolOutcome[]; pending: (PendingApproval | PendingInput)[] }> {
  const byCall = new Map<string, InputDecision[]>();
  for (const decision of decisions) byCall.set(decision.callId, [...(byCall.get(decision.callId) ?? []), decision]);
  const settled = await Promise.all([...byCall.values()].map((group) => settleCall(loop, group)));
  const calls: WireCall[] = [];
  const outcomes: ToolOutcome[] = [];
  const pending: (PendingApproval | PendingInput)[] = [];
  [...byCall.values()].forEach(([first], i) => {
    const one = settled[i];
    if ('pending' in one) pending.push(one.pending);
    else {
      const name = first.outcome === 'answered' && first.sealed.program ? RUN_CODE : first.tool;
      calls.push({ id: first.callId, name, arguments: undefined, index: 0 });
      outcomes.push(one.outcome);
    }
  });
  loop.stats.toolCalls += calls.length;
  return { calls, outcomes, pending };
}
