import type { Loop } from '../loop/context';
import type { ToolOutcome } from '../loop/tool-outcome';
import { resumeProgram, waitingOf, watchedToolCall, type CallMode, type ProgramResume } from '../loop/turn';
import type { WireCall } from '../loop/turn-result';
import { RUN_CODE } from '../code-mode/declarations';
import { isReplayLog } from '../code-mode/replay-log';
import type { PendingApproval } from './approval';
import { approvedCall, isInputDecision, type ApprovalDecision, type PersonDecision } from './approval-decision';
import { cancelDeclinedTask } from './declined-task';
import type { PendingInput } from './input';
import { inputAnswerOf, misfit } from './input-answer';
import type { InputDecision } from './input-decision';
import type { Unanswered } from './refusal';
import { noteApproval, noteInput } from './note';

/*
 * What the person's answers do, once read and recorded: an approved call runs, a tool whose questions were answered
 * runs again with the answers; the others read why not; a program of code mode's resumes with them. The steps that
 * need a running loop live here, apart from the decisions (approval-decision.ts, input-decision.ts), which the wires
 * read.
 */

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
async function answerInputs(
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

/** What one decided approval answers: its call run (the judge told it was approved), or why not; a program resumes. */
function decidedOutcome(loop: Loop, decision: ApprovalDecision): Promise<ToolOutcome> {
  let run: ProgramResume['answer'];
  if (decision.outcome === 'granted') {
    noteApproval(loop, decision.tool, 'granted');
    run = (id, mode) => watchedToolCall(loop, { ...approvedCall(decision), id }, 0, { ...mode, approved: true });
  } else {
    noteApproval(loop, decision.tool, decision.outcome, decision.reason);
    const refused = { kind: 'unapproved', tool: decision.tool, ...decision.refusal } as ToolOutcome;
    run = () => Promise.resolve(refused);
  }
  if (decision.program) return resumeProgram(loop, decision.callId, decision.program, run);
  return run(decision.callId, {});
}

/**
 * Answers the calls the client's approvals decided, after the conversation's other answers: an approved call runs
 * (the judge told so), the others read why not. The calls whose tool asked the person run again with the answers;
 * those that wait for the person again (a tool asks, a program's next call needs approval) are returned, to be asked.
 */
export async function answerApprovals(
  loop: Loop,
  all: readonly PersonDecision[],
): Promise<(PendingApproval | PendingInput)[]> {
  const decisions = all.filter((decision): decision is ApprovalDecision => !isInputDecision(decision));
  const inputs = answerInputs(loop, all.filter(isInputDecision));
  const outcomes = await Promise.all(decisions.map((decision) => decidedOutcome(loop, decision)));
  const { calls, outcomes: answers, pending } = await inputs;
  const answered = decisions.flatMap(({ callId, tool, program }, i) => {
    const outcome = outcomes[i];
    const waiting = waitingOf(callId, program ? RUN_CODE : tool, outcome);
    if (waiting) {
      pending.push(waiting);
      return [];
    }
    if (program || outcome.kind !== 'unapproved') loop.stats.toolCalls++;
    return [{ call: { id: callId, name: program ? RUN_CODE : tool, arguments: undefined, index: 0 }, outcome }];
  });
  loop.conversation.addOutcomes(
    [...answered.map(({ call }) => call), ...calls],
    [...answered.map(({ outcome }) => outcome), ...answers],
  );
  return pending;
}
