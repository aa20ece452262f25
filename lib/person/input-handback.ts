import { randomUUID } from 'node:crypto';
import type { PendingApproval } from './approval';
import type { StopReason } from '../loop/budget-note';
import type { Loop } from '../loop/context';
import type { PendingInput } from './input';
import type { Answer } from '../loop/reply';
import type { TurnResult } from '../loop/turn-result';
import { noteInput } from './input-note';
import type { InputTokens } from './input-token';
import type { WireCall } from '../loop/wire';

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
  // a follow-up whose tool asks again hands its question back before any turn: no reply of the model's to shape it
  const held: TurnResult = turn ?? {
    text: '',
    calls: [],
    output: undefined,
    stop: null,
    id: '',
    model: '',
    reply: undefined,
  };
  return [inputs.length > 0 ? 'input' : 'final', { approvals: loop.conversation.handBack(held, calls) }];
}
