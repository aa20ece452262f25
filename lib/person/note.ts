import type { Loop } from '../loop/context';
import { APPROVAL, INPUT, type ApprovalOutcome, type InputOutcome, type Question, type SealedKind } from './question';

/** One step of a question to the person, in the loop's log, metrics and span alike: `agent-loop <kind> <step>`. */
function noteStep(
  loop: Loop,
  kind: SealedKind,
  tool: string,
  outcome: string,
  level: 'info' | 'warn',
  fields: Record<string, unknown>,
): void {
  loop.telemetry?.[kind.name](tool, outcome);
  loop.logger[level](`agent-loop ${kind.name} ${outcome}`, { ...loop.logFields, tool, ...fields });
}

const reasonOf = (reason: string | undefined) => (reason === undefined ? {} : { reason });

/** Every approval's step: asked and granted are news, the others a warning. */
export function noteApproval(loop: Loop, tool: string, outcome: ApprovalOutcome, reason?: string): void {
  noteStep(
    loop,
    APPROVAL,
    tool,
    outcome,
    outcome === 'asked' || outcome === 'granted' ? 'info' : 'warn',
    reasonOf(reason),
  );
}

/** Every question's step: the question's mode and its fields' names, never what the person typed (that is content). */
export function noteInput(
  loop: Loop,
  tool: string,
  outcome: InputOutcome,
  detail: { question?: Question; reason?: string } = {},
): void {
  const { question, reason } = detail;
  const properties = question?.mode === 'form' ? question.requestedSchema.properties : undefined;
  noteStep(loop, INPUT, tool, outcome, outcome === 'refused' ? 'warn' : 'info', {
    ...(question ? { mode: question.mode } : {}),
    ...(typeof properties === 'object' && properties !== null ? { fields: Object.keys(properties) } : {}),
    ...reasonOf(reason),
  });
}
