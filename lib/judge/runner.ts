import { redacted } from '../shared/redact';
import type { LoopMetrics } from '../telemetry/metrics';
import type { Judge, JudgeContext, JudgeInput, Logger, Verdict } from '../types';
import { evaluateWithin } from './timeout';
import { judgeOfLlm } from './llm';
import { maskedArguments } from './masked-arguments';
import type { JudgeOption } from './options';
import { judgeOfRules } from './rules';
import { verdictProblem } from './verdict';

/** `ask`: why a person must approve the call (with `arguments`, when given) before it runs */
export type JudgeDecision =
  | { blocked: false; arguments?: Record<string, unknown>; result?: string; ask?: string }
  | { blocked: true; reason: string };

export interface JudgeRunner {
  /** `logger`: the loop's, whose lines carry the client's request id */
  review(input: JudgeInput, context: JudgeContext & { loopId: string; logger?: Logger }): Promise<JudgeDecision>;
}

function judgeFrom(option: JudgeOption): Judge {
  if ('rules' in option) return judgeOfRules(option.rules);
  if ('llm' in option) return judgeOfLlm(option.llm);
  return option.judge;
}

/** Duck-typed: errors from another realm (vm contexts, undici internals) fail `instanceof Error`. */
function describe(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

interface Reviewed {
  verdict: Verdict;
  /** set when the judge threw, timed out or returned something that is not a verdict */
  failure?: string;
}

async function reviewed(
  judge: Judge,
  input: JudgeInput,
  context: JudgeContext,
  option: JudgeOption,
): Promise<Reviewed> {
  let failure: string;
  try {
    const verdict = await evaluateWithin(judge, input, context, option.timeoutSec);
    const problem = verdictProblem(verdict, input.surface);
    if (!problem) return { verdict: verdict as Verdict };
    failure = `invalid verdict: ${problem}`;
  } catch (error) {
    // an error of the judge's own model call may quote its URL or key: the agent reads this text
    failure = redacted(describe(error));
  }
  const reason = `judge failed: ${failure}`;
  return { verdict: option.onError === 'allow' ? { action: 'allow' } : { action: 'block', reason }, failure: reason };
}

/** A call a person already approved is not asked about again. */
function decisionFor(verdict: Verdict, input: JudgeInput): JudgeDecision {
  if (verdict.action === 'block') return { blocked: true, reason: verdict.reason };
  if (verdict.action === 'allow') return { blocked: false };
  if (verdict.action === 'ask') {
    if (input.approved) return { blocked: false };
    const ask =
      typeof verdict.reason === 'string' && verdict.reason !== ''
        ? verdict.reason
        : `the policy asks a person to approve '${input.tool}'`;
    return { blocked: false, ask, ...(verdict.arguments ? { arguments: verdict.arguments } : {}) };
  }
  return input.surface === 'tool_call'
    ? { blocked: false, arguments: verdict.arguments }
    : { blocked: false, result: verdict.result };
}

/** what the admin API's loop records keep of a verdict */
export type VerdictSink = (
  loopId: string,
  verdict: { surface: string; tool: string; action: string; reason?: string },
) => void;

export function createJudgeRunner(
  option: JudgeOption,
  logger: Logger,
  metrics?: LoopMetrics,
  onVerdict?: VerdictSink,
): JudgeRunner {
  const judge = judgeFrom(option);
  return {
    async review(input, context) {
      const startedAt = Date.now();
      const { verdict, failure } = await reviewed(judge, input, context, option);
      const given = failure ?? ('reason' in verdict ? verdict.reason : undefined);
      const reason = given === undefined ? undefined : redacted(given);
      const rewritten = 'arguments' in verdict ? verdict.arguments : undefined;
      const level = failure || verdict.action === 'block' ? 'warn' : 'info';
      metrics?.verdict(input.binding, input.surface, failure ? 'error' : verdict.action);
      onVerdict?.(context.loopId, {
        surface: input.surface,
        tool: input.tool,
        action: verdict.action,
        ...(reason === undefined ? {} : { reason }),
      });
      (context.logger ?? logger)[level]('judge verdict', {
        loopId: context.loopId,
        surface: input.surface,
        tool: input.tool,
        action: verdict.action,
        reason: reason === undefined ? undefined : maskedArguments(reason, input.arguments, rewritten),
        durationMs: Date.now() - startedAt,
        mode: option.mode,
        ...(input.approved ? { approved: true } : {}),
      });
      return option.mode === 'monitor' ? { blocked: false } : decisionFor(verdict, input);
    },
  };
}
