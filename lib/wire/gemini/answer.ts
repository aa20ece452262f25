import { textWithNote, type Answer } from '../../loop/reply';
import type { WireCall } from '../../loop/wire';
import { partsOf } from './request';
import { isCall, type Content, type GenerateContentResponse, type Part, type UsageMetadata } from './types';

/** The response's id and model when no model reply lends its own. */
export interface GeminiIdentity {
  responseId: string;
  model: string;
}

/**
 * A call to the client's approval tool (arguments `{ tool, arguments, reason }`) as the functionCall part the client is
 * shown.
 */
export const approvalCall = (call: WireCall): Part => ({
  functionCall: { id: call.id, name: call.name, args: JSON.parse(String(call.arguments)) as Record<string, unknown> },
});

/**
 * The client's own calls as the model sent them (every field, the thought signature on the part it came on), each
 * with the id the client answers it by: the model sends none on Gemini 2.5 and 3, the loop's then.
 */
function handedBackParts(answer: Answer): Part[] {
  const parts = partsOf(answer.last?.output as Content | undefined);
  return (answer.handBack ?? []).flatMap((call) => {
    const part = parts[call.index];
    return part && isCall(part) ? [{ ...part, functionCall: { ...part.functionCall, id: call.id } }] : [];
  });
}

/**
 * The parts the client gets and the finish reason: every turn's text (and the loop's note) as one text part, then
 * the client's own calls handed back, or the calls to its approval tool; the last reply's finishReason on a final
 * answer, else `STOP`.
 */
export function answerParts(answer: Answer): { parts: Part[]; finishReason: string } {
  const text = answer.approvals || answer.handBack ? answer.text : textWithNote(answer);
  const parts: Part[] = [
    ...(text === '' ? [] : [{ text }]),
    ...handedBackParts(answer),
    ...(answer.approvals ?? []).map(approvalCall),
  ];
  const finishReason = answer.stop === 'final' && !answer.approvals ? answer.last?.stop : undefined;
  return { parts, finishReason: finishReason ?? 'STOP' };
}

/**
 * The client's JSON answer: ONE GenerateContentResponse for the whole loop, shaped like the last reply (its
 * modelVersion, responseId and any field the loop does not know), its one candidate holding `parts`, and the
 * usageMetadata summed over the turns.
 */
export function finalAnswer(
  answer: Answer,
  usage: UsageMetadata | undefined,
  identity: GeminiIdentity,
): GenerateContentResponse {
  const shape = (answer.last?.reply as GenerateContentResponse | undefined) ?? {};
  const [candidate] = shape.candidates ?? [];
  const { parts, finishReason } = answerParts(answer);
  return {
    ...shape,
    candidates: [{ ...candidate, content: { role: 'model', parts }, finishReason, index: 0 }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: typeof shape.modelVersion === 'string' ? shape.modelVersion : identity.model,
    responseId: typeof shape.responseId === 'string' ? shape.responseId : identity.responseId,
  };
}
