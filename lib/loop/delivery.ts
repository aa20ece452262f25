import type { Logger } from '../types';
import type { LoopLogFields, LoopStats } from './context';
import type { Reply } from './reply';
import type { LoopResult } from './run';

/** How a loop ended, for metrics and its span: the answer's stop reason, `fallthrough` or `client_gone`. */
export function stopOf(result: LoopResult, clientGone: boolean): string {
  if (clientGone || result.kind === 'abandoned') return 'client_gone';
  return result.kind === 'answer' ? result.answer.stop : 'fallthrough';
}

/** Sends the answer to a client that is still there; for one that went away, only logs how its loop ended. */
export async function deliver(
  result: LoopResult,
  reply: Reply,
  clientGone: boolean,
  logger: Logger,
  fields: LoopLogFields,
  stats: LoopStats,
): Promise<LoopResult> {
  if (clientGone || result.kind === 'abandoned') {
    const stop = result.kind === 'answer' ? result.answer.stop : result.kind;
    logger.info(`agent-loop ${result.kind === 'answer' ? 'finished' : 'abandoned'}: the client went away`, {
      ...fields,
      ...stats,
      stop,
    });
    return { kind: 'abandoned' };
  }
  if (result.kind === 'answer') {
    const held = reply.beforeSend?.(result.answer);
    if (held) await held;
    const outcome = { ...fields, ...stats };
    reply.send(result.answer, outcome);
    logger.info('agent-loop answered', { ...outcome, stop: result.answer.stop, stream: reply.streams });
  } else {
    logger.info('agent-loop fell through to the normal handler', { ...fields, reason: result.reason });
  }
  return result;
}
