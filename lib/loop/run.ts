import { redacted } from '../redact';
import type { ChatCompletion, ChatMessage, ChatUsage, ToolCall } from '../types';
import { budgetNote, type Deadline, type StopReason } from './budget';
import type { PendingApproval } from './approval';
import type { Loop } from './context';
import { addUsage, AnswerText, type Answer, type Reply } from './reply';
import { runToolCalls } from './turn';
import type { TurnSource } from './turn-body';

export type LoopResult = { kind: 'answer'; answer: Answer } | { kind: 'fallthrough'; reason: string } | { kind: 'abandoned' };

export interface LoopPlan {
  /** the client's request as every turn sends it: the loop's tools in, `messages` replaced each turn */
  body: TurnSource;
  clientTools: ReadonlySet<string>;
  maxTurns: number;
  /** undefined: no token budget */
  maxTokens?: number;
  deadline: Deadline;
  reply: Reply;
  /** the client's own tool calls as handed back, carrying what the loop did before */
  handBack(calls: ToolCall[]): ToolCall[];
  /** calls to the client's approval tool, one per call waiting for approval, carrying what the loop did before */
  askApproval(pending: PendingApproval[]): ToolCall[];
}

/** The model's last message, its text replaced by the whole answer's text (every turn's). */
function withText(message: ChatMessage, text: string): ChatMessage {
  return { ...message, content: text === '' ? (message.content ?? null) : text };
}

/**
 * The turn loop: call the model, run its tool calls, call it again, until a final answer or a budget runs out.
 * The same loop serves both kinds of client: the reply decides whether text reaches the client as it arrives.
 */
export async function runLoop(loop: Loop, plan: LoopPlan): Promise<LoopResult> {
  const text = new AnswerText((delta) => plan.reply.text(delta));
  let last: ChatCompletion | undefined;
  let usage: ChatUsage | undefined;
  // Once a byte went to the client, even a first turn that broke off ends in an answer, never a fall-through.
  const produced = () => last !== undefined || plan.reply.committed;

  const answer = (stop: StopReason, message: ChatMessage, finishReason: string): LoopResult => ({ kind: 'answer', answer: { stop, message, finishReason, usage, last } });
  const stopWith = (stop: Exclude<StopReason, 'final'>, reason?: string): LoopResult => {
    text.newParagraph();
    text.append(budgetNote(stop, { maxTurns: plan.maxTurns, totalBudgetSec: plan.deadline.seconds, reason, turn: loop.stats.turns, maxTokensPerLoop: plan.maxTokens, tokens: usage?.total_tokens }));
    return answer(stop, { role: 'assistant', content: text.value }, 'stop');
  };

  for (let turn = 1; turn <= plan.maxTurns; turn++) {
    if (plan.deadline.expired) return produced() ? stopWith(plan.deadline.stop) : { kind: 'fallthrough', reason: plan.deadline.stop };
    if (loop.signal.aborted) return { kind: 'abandoned' };
    const started = performance.now();
    text.newParagraph();
    let reply: ChatCompletion;
    const watch = loop.telemetry?.turn(loop.messages);
    try {
      loop.stats.turns = turn;
      reply = await loop.complete(plan.body.request(loop.messages), loop.signal, (delta) => text.append(delta), watch);
    } catch (error) {
      const reason = redacted((error as Error).message);
      watch?.failed(plan.deadline.expired ? 'deadline' : loop.signal.aborted ? 'aborted' : 'upstream_error');
      loop.logger.warn('agent-loop turn failed', { loopId: loop.id, binding: loop.binding.name, turn, reason });
      if (loop.signal.aborted && !plan.deadline.expired) return { kind: 'abandoned' };
      if (!produced()) return { kind: 'fallthrough', reason };
      return plan.deadline.expired ? stopWith(plan.deadline.stop) : stopWith('upstream_error', reason);
    }
    watch?.succeeded(reply);
    last = reply;
    usage = addUsage(usage, reply.usage);
    const message = reply.choices[0].message;
    const calls = message.tool_calls ?? [];
    if (loop.verbose) {
      loop.logger.info('agent-loop turn', {
        loopId: loop.id,
        binding: loop.binding.name,
        turn,
        toolCalls: calls.length,
        durationMs: Math.round(performance.now() - started),
      });
    }
    if (calls.length === 0) return answer('final', withText(message, text.value), reply.choices[0].finish_reason ?? 'stop');
    const forClient = calls.filter((call) => plan.clientTools.has(call.function?.name));
    if (forClient.length > 0) return answer('final', { ...withText(message, text.value), tool_calls: plan.handBack(forClient) }, 'tool_calls');
    if (plan.maxTokens !== undefined && (usage?.total_tokens ?? 0) >= plan.maxTokens) return stopWith('tokens');
    if (turn === plan.maxTurns) break;
    plan.reply.toolsRunning();
    const pending = await runToolCalls(loop, message, turn);
    if (pending.length > 0) return answer('final', { role: 'assistant', content: text.value === '' ? null : text.value, tool_calls: plan.askApproval(pending) }, 'tool_calls');
  }
  return stopWith('max_turns');
}
