import type { ChatCompletion, ChatMessage, ChatTool, ChatUsage } from '../types';
import { budgetNote, type Deadline, type StopReason } from './budget';
import type { Loop } from './context';
import { addUsage, contentOf, finalCompletion } from './reply';
import { runToolCalls } from './turn';

export type LoopResult =
  | { kind: 'answer'; completion: ChatCompletion; stop: StopReason }
  | { kind: 'fallthrough'; reason: string }
  | { kind: 'abandoned' };

export interface LoopPlan {
  body: Record<string, unknown>;
  tools: ChatTool[];
  clientTools: ReadonlySet<string>;
  maxTurns: number;
  deadline: Deadline;
}

/** The turn loop: call the model, run its tool calls, call it again, until a final answer or a budget runs out. */
export async function runLoop(loop: Loop, plan: LoopPlan): Promise<LoopResult> {
  let last: ChatCompletion | undefined;
  let lastContent: string | undefined;
  let usage: ChatUsage | undefined;

  const stopWith = (stop: Exclude<StopReason, 'final'>, reason?: string): LoopResult => {
    const note = budgetNote(stop, { maxTurns: plan.maxTurns, totalBudgetSec: plan.deadline.seconds, reason, turn: loop.stats.turns });
    const content = lastContent ? `${lastContent}\n\n${note}` : note;
    return { kind: 'answer', stop, completion: finalCompletion(last!, { role: 'assistant', content }, 'stop', usage) };
  };

  for (let turn = 1; turn <= plan.maxTurns; turn++) {
    if (plan.deadline.expired) return last ? stopWith('deadline') : { kind: 'fallthrough', reason: 'deadline' };
    if (loop.signal.aborted) return { kind: 'abandoned' };
    const started = performance.now();
    let reply: ChatCompletion;
    try {
      loop.stats.turns = turn;
      reply = await loop.complete({ ...plan.body, messages: loop.messages, tools: plan.tools }, loop.signal);
    } catch (error) {
      const reason = (error as Error).message;
      loop.logger.warn('agent-loop turn failed', { loopId: loop.id, binding: loop.binding.name, turn, reason });
      if (loop.signal.aborted && !plan.deadline.expired) return { kind: 'abandoned' };
      if (!last) return { kind: 'fallthrough', reason };
      return plan.deadline.expired ? stopWith('deadline') : stopWith('upstream_error', reason);
    }
    last = reply;
    usage = addUsage(usage, reply.usage);
    const message = reply.choices[0].message;
    lastContent = contentOf(message) ?? lastContent;
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
    if (calls.length === 0) return { kind: 'answer', stop: 'final', completion: finalCompletion(reply, message, reply.choices[0].finish_reason ?? 'stop', usage) };
    const forClient = calls.filter((call) => plan.clientTools.has(call.function?.name));
    if (forClient.length > 0) {
      const handedBack: ChatMessage = { ...message, tool_calls: forClient };
      return { kind: 'answer', stop: 'final', completion: finalCompletion(reply, handedBack, 'tool_calls', usage) };
    }
    if (turn === plan.maxTurns) break;
    await runToolCalls(loop, message, turn);
  }
  return stopWith('max_turns');
}
