import { randomUUID } from 'node:crypto';
import { maskedArguments } from '../judge/masked-arguments';
import type { StopReason } from '../shared/stop';
import type { Loop } from '../loop/context';
import type { Answer } from '../loop/reply';
import type { TurnResult } from '../loop/turn-result';
import type { WireCall } from '../loop/wire';
import type { ApprovalTokens, PendingApproval } from './approval';
import type { InputTokens, PendingInput } from './input';
import { noteApproval, noteInput } from './note';
import { APPROVAL, INPUT } from './question';

/**
 * Each call waiting for approval as a call to the client's approval tool, with what the person decides on
 * (`{ tool, arguments, reason }`) and, in its id, the call sealed: the client's answer to it decides the call.
 */
export function approvalCalls(loop: Loop, tokens: ApprovalTokens, pending: PendingApproval[]): WireCall[] {
  return pending.map((waiting) => {
    noteApproval(loop, waiting.tool, 'asked', maskedArguments(waiting.reason, waiting.arguments));
    return {
      id: tokens.idFor(loop.req, loop.binding.name, waiting),
      name: loop.approvalTool as string,
      arguments: JSON.stringify({ tool: waiting.tool, arguments: waiting.arguments, reason: waiting.reason }),
      index: 0,
    };
  });
}

/**
 * Each question a waiting call's tool asked, as a call to the client's input tool with what the person is asked
 * (`{ tool, message, mode, requestedSchema | url }`) and, in its id, the call and the question sealed: the client's
 * answers to all of one call's questions call its tool again.
 */
export function inputCalls(loop: Loop, tokens: InputTokens, pending: readonly PendingInput[]): WireCall[] {
  const inputTool = loop.input?.tool ?? '';
  return pending.flatMap(({ callId, tool, questions, ...rest }) => {
    const keys = Object.keys(questions);
    const group = randomUUID();
    return keys.map((key): WireCall => {
      const question = questions[key];
      noteInput(loop, tool, 'asked', { question });
      const sealed = { callId, tool, key, keys, question, group, ...rest };
      return {
        id: tokens.idFor(loop.req, loop.binding.name, sealed),
        name: inputTool,
        arguments: JSON.stringify(question),
        index: 0,
      };
    });
  });
}

/** A follow-up whose tool asks again hands its question back before any turn: no reply of the model's to shape it. */
const NO_TURN: TurnResult = { text: '', calls: [], output: undefined, stop: null, id: '', model: '', reply: undefined };

/**
 * The answer that hands the waiting calls to the person: a call to the approval tool for each call to approve, one
 * to the input tool for each question a tool asked (stop `input` when there is one), the first carrying the work.
 */
export function askPerson(
  loop: Loop,
  turn: TurnResult | undefined,
  pending: readonly (PendingApproval | PendingInput)[],
): [StopReason, Pick<Answer, 'approvals'>] {
  const inputs = pending.filter((one): one is PendingInput => 'questions' in one);
  const approvals = pending.filter((one): one is PendingApproval => !('questions' in one));
  const calls = [...loop.askApproval(approvals), ...loop.askInput(inputs)];
  const stop = inputs.length > 0 ? INPUT.stop : APPROVAL.stop;
  return [stop, { approvals: loop.conversation.handBack(turn ?? NO_TURN, calls) }];
}
