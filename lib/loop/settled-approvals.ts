import type { WireApprovals, WireRequest } from './wire';
import { recordedAnswers, type ApprovalReader, type PersonDecision } from '../person/approval-decision';
import { answerApprovals } from '../person/answers';
import { askPerson } from '../person/hand-back';
import type { Loop } from './context';
import type { LoopResult } from './run';

/**
 * A follow-up's approval answers applied before any turn; the answer when a tool asks the person again (its call still
 * waits), else undefined.
 */
export async function settledApprovals(
  loop: Loop,
  reader: ApprovalReader,
  approvals: WireApprovals,
  decisions: PersonDecision[],
): Promise<LoopResult | undefined> {
  const asksAgain = await answerApprovals(loop, await recordedAnswers(reader, decisions));
  // a follow-up that falls through hands the normal handler the conversation with every call answered
  loop.req.body = approvals.withItems(loop.req.body as WireRequest, loop.conversation.items);
  if (asksAgain.length === 0) return undefined;
  const [stop, fields] = askPerson(loop, undefined, asksAgain);
  return { kind: 'answer', answer: { stop, text: '', ...fields } };
}
