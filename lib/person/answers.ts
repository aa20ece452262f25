import type { Loop } from '../loop/context';
import type { ToolOutcome } from '../loop/tool-outcome';
import { watchedToolCall } from '../loop/turn';
import { wireCallOf, type WireCall } from '../loop/wire';
import { approvedCall, isInputDecision, type ApprovalDecision, type PersonDecision } from './approval-decision';
import { cancelDeclinedTask } from './declined-task';
import type { PendingInput } from './input';
import { inputAnswerOf, misfit } from './input-answer';
import type { InputDecision } from './input-decision';
import type { Unanswered } from './input-refusal';
import { noteApproval, noteInput } from './note';

/*
 * What the person's answers do, once read and recorded: an approved call runs, a tool whose questions were answered
 * runs again with the answers; the others read why not. The steps that need a running loop live here, apart from the
 * decisions (approval-decision.ts, input-decision.ts), which the wires read.
 */

type Settled = { outcome: ToolOutcome } | { pending: PendingInput };

/**
 * The answers to every question of one call, read together: the call runs again only when each was accepted and
 * fits.
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
async function settleCall(loop: Loop, decisions: InputDecision[]): Promise<Settled> {
  const { tool, callId } = decisions[0];
  const refused = decisions.find(
    (decision): decision is Extract<InputDecision, { input: true }> => decision.outcome !== 'answered',
  );
  if (refused) {
    noteInput(loop, tool, 'refused', { reason: refused.reason });
    return { outcome: { kind: 'unanswered', tool: refused.tool, ...(refused.refusal as Unanswered) } };
  }
  const answered = decisions as Extract<InputDecision, { outcome: 'answered' }>[];
  const { sealed } = answered[0];
  const responses = responsesOf(loop, tool, answered);
  if ('why' in responses && typeof responses.why === 'string') {
    const turnedDown = responses.why === 'declined' || responses.why === 'cancelled';
    if (turnedDown && sealed.taskId !== undefined) await cancelDeclinedTask(loop, sealed.taskId);
    return { outcome: { kind: 'unanswered', tool, ...(responses as Unanswered) } };
  }
  const call: WireCall = { id: callId, name: tool, arguments: JSON.stringify(sealed.arguments), index: 0 };
  const input = {
    inputResponses: responses,
    ...(sealed.requestState === undefined ? {} : { requestState: sealed.requestState }),
    ...(sealed.taskId === undefined ? {} : { taskId: sealed.taskId }),
  };
  const outcome = await watchedToolCall(loop, call, 0, true, { input, round: sealed.round });
  if (outcome.kind === 'asks') return { pending: { callId, tool, ...outcome.input } };
  return { outcome };
}

/**
 * Each waiting call whose questions the client answered (grouped by call): run again with the answers, or read why
 * not. A tool that asks again (another round) waits again: those calls come back, to be asked.
 */
export async function answerInputs(
  loop: Loop,
  decisions: readonly InputDecision[],
): Promise<{ calls: WireCall[]; outcomes: ToolOutcome[]; pending: PendingInput[] }> {
  const byCall = new Map<string, InputDecision[]>();
  for (const decision of decisions) byCall.set(decision.callId, [...(byCall.get(decision.callId) ?? []), decision]);
  const settled = await Promise.all([...byCall.values()].map((group) => settleCall(loop, group)));
  const calls: WireCall[] = [];
  const outcomes: ToolOutcome[] = [];
  const pending: PendingInput[] = [];
  [...byCall.values()].forEach(([{ callId, tool }], i) => {
    const one = settled[i];
    if ('pending' in one) pending.push(one.pending);
    else {
      calls.push({ id: callId, name: tool, arguments: undefined, index: 0 });
      outcomes.push(one.outcome);
    }
  });
  loop.stats.toolCalls += calls.length;
  return { calls, outcomes, pending };
}

/**
 * Answers the calls the client's approvals decided, after the conversation's other answers: an approved call runs
 * (the judge told so), the others read why not. The calls whose tool asked the person run again with the answers;
 * those whose tool asks again are returned, to be asked.
 */
export async function answerApprovals(loop: Loop, all: readonly PersonDecision[]): Promise<PendingInput[]> {
  const decisions = all.filter((decision): decision is ApprovalDecision => !isInputDecision(decision));
  const inputs = answerInputs(loop, all.filter(isInputDecision));
  const outcomes = await Promise.all(
    decisions.map(async function answered(decision): Promise<ToolOutcome> {
      if (decision.outcome !== 'granted') {
        noteApproval(loop, decision.tool, decision.outcome, decision.reason);
        return { kind: 'unapproved', tool: decision.tool, ...decision.refusal } as ToolOutcome;
      }
      noteApproval(loop, decision.tool, 'granted');
      return watchedToolCall(loop, wireCallOf(approvedCall(decision)), 0, true);
    }),
  );
  loop.stats.toolCalls += decisions.filter((decision) => decision.outcome === 'granted').length;
  const { calls, outcomes: answers, pending } = await inputs;
  // an approved call whose tool asks the person waits for them too: its answer comes once they answered
  const answered = decisions.flatMap(({ callId, tool }, i) => {
    const outcome = outcomes[i];
    if (outcome.kind !== 'asks') return [{ call: { id: callId, name: tool, arguments: undefined, index: 0 }, outcome }];
    pending.push({ callId, tool, ...outcome.input });
    return [];
  });
  loop.conversation.addOutcomes(
    [...answered.map(({ call }) => call), ...calls],
    [...answered.map(({ outcome }) => outcome), ...answers],
  );
  return pending;
}
