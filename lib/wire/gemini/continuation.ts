import { carryWork, reopenCarried, tokenAt, type Reopened } from '../../hand-back/continuation';
import { elidedResponse } from './elision';
import { partsOf } from './request';
import { isCall, type Content, type Part } from './types';
import type { HandBacks, LoopHandBacks, WireCall } from '../../loop/wire';

/** The ids of a content's functionCall parts, in order (undefined where the model sent none). */
const callIds = (content: Content): (string | undefined)[] =>
  partsOf(content).flatMap((part) => (isCall(part) ? [part.functionCall.id] : []));

/** A user content with every functionResponse in it elided: what a token drops first to fit. */
function elidedContent(content: Content): Content | undefined {
  if (content.role !== 'user') return undefined;
  const parts = partsOf(content);
  const elided = parts.map(elidedResponse);
  return elided.some((part, i) => part !== parts[i]) ? { ...content, parts: elided } : undefined;
}

/**
 * The client's calls as handed back, the first one's id carrying a sealed record of the loop's earlier turns AND
 * the handed-back model content as the model sent it (thought signatures on their parts, no id where it sent none).
 * The record rides even on a first turn's hand-back: the client sees ids the model never sent, and the follow-up's
 * copy of that content is put back as the model sent it.
 */
export function carryOn(handBacks: LoopHandBacks, own: Content[], last: Content, calls: WireCall[]): WireCall[] {
  return carryWork(handBacks, calls, [...own, last], elidedContent);
}

export interface GeminiContinued extends Reopened {
  contents: Content[];
}

/** A functionResponse answering one of `ids` (the ids the client was shown) under the model's own id, or none. */
function withModelId(part: Part, ids: ReadonlyMap<string, string | undefined>): Part {
  const response = part.functionResponse;
  if (!response || typeof response.id !== 'string' || !ids.has(response.id)) return part;
  const { id, ...rest } = response;
  const model = ids.get(id);
  return { ...part, functionResponse: model === undefined ? rest : { ...rest, id: model } };
}

/**
 * The client's contents with each carried record in place of the model content that carries it, and every answer
 * to its calls under the model's own id again (none where the model sent none); a token that does not open leaves
 * its content, its ids cut back to the loop's.
 */
export function restoreWork(handBacks: HandBacks, contents: readonly Content[]): GeminiContinued | undefined {
  const carried = reopenCarried(handBacks, contents, (content) =>
    content.role === 'model' ? callIds(content)[0] : undefined,
  );
  if (!carried) return undefined;
  const { carriers, workAt, reopened } = carried;
  const ids = new Map<string, string | undefined>();
  const restored: Content[] = [];
  contents.forEach((content, i) => {
    const work = workAt.get(i);
    const shown = carriers[i] === undefined ? [] : callIds(content);
    if (work) {
      const sent = callIds(work[work.length - 1]);
      shown.forEach((id, n) => id !== undefined && ids.set(id, sent[n]));
      restored.push(...work);
    } else if (carriers[i] !== undefined) {
      const id = carriers[i] as string;
      ids.set(id, id.slice(0, tokenAt(id)));
      restored.push({ ...content, parts: partsOf(content).map((part) => cutBack(part, id)) });
    } else {
      const parts = partsOf(content);
      const answered = parts.map((part) => withModelId(part, ids));
      restored.push(answered.some((part, n) => part !== parts[n]) ? { ...content, parts: answered } : content);
    }
  });
  return { contents: restored, ...reopened };
}

/** The call part whose id carries the token that did not open, under the id before the token. */
function cutBack(part: Part, id: string): Part {
  return isCall(part) && part.functionCall.id === id
    ? { ...part, functionCall: { ...part.functionCall, id: id.slice(0, tokenAt(id)) } }
    : part;
}
