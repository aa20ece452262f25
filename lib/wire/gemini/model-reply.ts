import { excerpt } from '../../shared/deltas';
import { isObject } from '../../shared/fields';
import type { Candidate, GenerateContentResponse, Part } from './types';

/** What is wrong with a part the loop must act on: a functionCall needs a name, and its args are an object. */
function partProblem(part: unknown): string | undefined {
  if (!isObject(part)) return `a part is not an object: ${excerpt(JSON.stringify(part) ?? '')}`;
  const call = part.functionCall;
  if (call === undefined) return undefined;
  if (!isObject(call) || typeof call.name !== 'string' || call.name === '')
    return `a functionCall has no name: ${excerpt(JSON.stringify(part))}`;
  if (call.args !== undefined && call.args !== null && !isObject(call.args))
    return `the args of functionCall '${call.name}' are not an object: ${excerpt(JSON.stringify(call.args))}`;
  return undefined;
}

/**
 * The reply's first candidate's parts, each checked (a candidate with no content, e.g. stopped by safety, has none).
 */
export function checkedParts(candidate: Candidate | undefined): Part[] {
  const parts: unknown = candidate?.content?.parts;
  if (parts === undefined) return [];
  if (!Array.isArray(parts)) throw new Error("the reply's candidate content has no list of parts");
  for (const part of parts) {
    const problem = partProblem(part);
    if (problem) throw new Error(`the reply's ${problem}`);
  }
  return parts as Part[];
}

/**
 * The model's JSON reply in the shape the loop relies on (a GenerateContentResponse with a candidate), every field
 * kept as it came; or an Error naming what is wrong (a blocked prompt has no candidate: the turn then fails like any
 * failed model call, and a first turn falls through to the normal handler).
 */
export function wellFormedReply(reply: unknown): GenerateContentResponse {
  if (!isObject(reply) || !Array.isArray(reply.candidates) || !isObject(reply.candidates[0])) {
    const feedback = isObject(reply) && isObject(reply.promptFeedback) ? reply.promptFeedback.blockReason : undefined;
    throw new Error(
      typeof feedback === 'string'
        ? `the prompt was blocked: ${feedback}`
        : 'the reply is not a GenerateContentResponse',
    );
  }
  checkedParts(reply.candidates[0] as Candidate);
  return reply as GenerateContentResponse;
}
