import { redacted } from '../shared/redact';
import type { TokenUsage, TurnResult } from './wire';
import { budgetNote, type BudgetStop } from './budget-note';
import type { StopReason } from '../shared/stop';
import type { Loop } from './context';
import { addUsage, AnswerText, type Answer } from './reply';
import { consentHeaders } from '../person/sign-in';
import { SIGN_IN } from '../person/question';
import { runToolCalls } from './turn';
import { askPerson } from '../person/hand-back';

export type LoopResult =
  { kind: 'answer'; answer: Answer } | { kind: 'fallthrough'; reason: string } | { kind: 'abandoned' };

/**
 * The turn loop: call the model, run its tool calls, call it again, until a final answer or a budget runs out.
 * The same loop serves every wire and both kinds of client: the reply decides whether text reaches the client as it
 * arrives, the loop's conversation what a turn's request and its answers look like.
 */
export async function runLoop(loop: Loop): Promise<LoopResult> {
  try {
    return await turns(loop);
  } finally {
    // before the answer is done: a client that has it finds its tokens in the fleet's sum
    await loop.keyBudget?.flush();
  }
}

/** The note of an answer a budget (or a failed turn) stopped: which one, and how far the loop got. */
function budgetNoteOf(loop: Loop, stop: BudgetStop, usage: TokenUsage | undefined, reason?: string): string {
  return budgetNote(stop, {
    maxTurns: loop.maxTurns,
    totalBudgetSec: loop.deadline.seconds,
    reason,
    turn: loop.stats.turns,
    maxTokensPerLoop: loop.settings.maxTokensPerLoop,
    tokens: usage?.total,
    keyBudget: loop.keyBudget,
  });
}

async function turns(loop: Loop): Promise<LoopResult> {
  const { deadline, maxTurns } = loop;
  const maxTokens = loop.settings.maxTokensPerLoop;
  const text = new AnswerText((delta) => loop.reply.text(delta));
  let last: TurnResult | undefined;
  let usage: TokenUsage | undefined;
  // Once a byte went to the client, even a first turn that broke off ends in an answer, never a fall-through.
  const produced = () => last !== undefined || loop.reply.committed;

  const answer = (stop: StopReason, fields: Pick<Answer, 'handBack' | 'approvals' | 'note'> = {}): LoopResult => ({
    kind: 'answer',
    answer: { stop, text: text.value, last, usage, ...fields },
  });
  const stopWith = (stop: BudgetStop, reason?: string): LoopResult =>
    answer(stop, { note: budgetNoteOf(loop, stop, usage, reason) });

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (deadline.expired) return produced() ? stopWith(deadline.stop) : { kind: 'fallthrough', reason: deadline.stop };
    if (loop.signal.aborted) return { kind: 'abandoned' };
    const started = performance.now();
    text.newParagraph();
    let reply: TurnResult;
    const watch = loop.telemetry?.turn(loop.conversation.items);
    try {
      loop.stats.turns = turn;
      reply = await loop.complete(loop.conversation.request(), loop.signal, (delta) => text.append(delta), watch);
    } catch (error) {
      const reason = redacted((error as Error).message);
      watch?.failed(deadline.expired ? 'deadline' : loop.signal.aborted ? 'aborted' : 'upstream_error');
      loop.logger.warn('agent-loop turn failed', { ...loop.logFields, turn, reason });
      if (loop.signal.aborted && !deadline.expired) return { kind: 'abandoned' };
      if (!produced()) return { kind: 'fallthrough', reason };
      return deadline.expired ? stopWith(deadline.stop) : stopWith('upstream_error', reason);
    }
    watch?.succeeded(reply);
    last = reply;
    usage = addUsage(usage, reply.usage);
    const keySpent =
      reply.usage !== undefined && loop.keyBudget !== undefined && (await loop.keyBudget.add(reply.usage.total));
    const { calls } = reply;
    if (loop.verbose) {
      loop.logger.info('agent-loop turn', {
        ...loop.logFields,
        turn,
        toolCalls: calls.length,
        durationMs: Math.round(performance.now() - started),
      });
    }
    if (calls.length === 0) return answer('final');
    const forClient = calls.filter((call) => loop.clientTools.has(call.name));
    if (forClient.length > 0) return answer('final', { handBack: loop.conversation.handBack(reply, forClient) });
    if (maxTokens !== undefined && (usage?.total ?? 0) >= maxTokens) return stopWith('tokens');
    if (keySpent) return stopWith('key-budget');
    if (turn === maxTurns) break;
    loop.reply.toolsRunning();
    const pending = await runToolCalls(loop, reply, turn);
    if (loop.consent) return answer(SIGN_IN.stop, { note: consentHeaders(loop.res, loop.consent) });
    if (pending.length > 0) return answer(...askPerson(loop, reply, pending));
  }
  return stopWith('max_turns');
}
