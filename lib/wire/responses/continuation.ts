import { MAX_CONTINUATION_CHARS, MAX_WORK_BYTES, TAG } from '../../loop/continuation';
import { responsesElision } from './elision';
import { isObject, type ResponseItem } from './items';
import type { HandBacks, LoopHandBacks, WireCall } from '../../loop/wire';

/**
 * The client's own calls as handed back, the first one's `call_id` carrying a sealed record of the loop's earlier
 * items (its output items, reasoning included, and their answers), so that the follow-up brings them along. Outputs
 * are elided, oldest first, until the token fits; nothing to carry, or nothing that fits: the calls as they are.
 */
export function carryOnCalls({ continuations, req, binding, succeeded }: LoopHandBacks, calls: WireCall[], own: readonly ResponseItem[]): WireCall[] {
  const [first, ...rest] = calls;
  if (own.length === 0 || first.id === '') return calls;
  const work = [...own];
  const names = responsesElision.names(work);
  const ran = [...succeeded];
  const sealed = () => {
    const token = continuations.sealWork(req, binding, first.id, work, ran);
    return token !== undefined && token.length <= MAX_CONTINUATION_CHARS ? token : undefined;
  };
  let token = sealed();
  for (let i = 0; token === undefined && i < work.length; i++) {
    const elided = responsesElision.elide(work[i], names);
    if (elided === undefined) continue;
    work[i] = elided.item;
    token = sealed();
  }
  return token === undefined ? calls : [{ ...first, id: `${first.id}${TAG}${token}` }, ...rest];
}

/** The field whose id may carry the loop's work: a call's `call_id`, or the id of an approval request or response. */
function idField(item: ResponseItem): string {
  if (item.type === 'mcp_approval_request') return 'id';
  return item.type === 'mcp_approval_response' ? 'approval_request_id' : 'call_id';
}

const carrierOf = (item: ResponseItem): string | undefined => {
  const id = item[idField(item)];
  return typeof id === 'string' ? id : undefined;
};
const tokenAt = (item: ResponseItem): number => carrierOf(item)?.indexOf(TAG) ?? -1;

export interface RestoredItems {
  input: ResponseItem[];
  succeeded: string[];
  forged: number;
  ignored: number;
}

/**
 * What the upstream holding the loop's turns never got: the answers to the last turn's calls, which ran just before
 * the loop stopped to ask a person (the work's trailing `function_call_output` items).
 */
function unsent(work: readonly ResponseItem[]): ResponseItem[] {
  let at = work.length;
  while (at > 0 && work[at - 1].type === 'function_call_output') at--;
  return work.slice(at);
}

/** Where carried work goes back: before the handed-back call and the reasoning and text of the turn that made it. */
function insertionPoint(input: readonly ResponseItem[], carrier: number): number {
  let at = carrier;
  while (at > 0 && (input[at - 1].type === 'reasoning' || (input[at - 1].type === 'message' && input[at - 1].role === 'assistant'))) at--;
  return at;
}

/**
 * The follow-up's input with every call id cut back to the model's own and, unless the upstream holds the loop's
 * items itself (`chained`), each verified record put back before the call that carried it; `undefined` when no item
 * carries a token. Each token opens once, the latest first, within `MAX_WORK_BYTES` of work in all.
 */
export function restoreItems({ continuations, req, binding }: HandBacks, input: readonly ResponseItem[], chained: boolean): RestoredItems | undefined {
  if (!input.some((item) => tokenAt(item) >= 0)) return undefined;
  const works = new Map<string, ResponseItem[]>();
  const succeeded = new Set<string>();
  const seen = new Set<string>();
  let budget = MAX_WORK_BYTES;
  let forged = 0;
  let ignored = 0;
  for (let i = input.length - 1; i >= 0; i--) {
    const at = tokenAt(input[i]);
    const id = carrierOf(input[i]) as string;
    if (at < 0 || seen.has(id)) continue;
    seen.add(id);
    if (budget === 0 || id.length - at - TAG.length > MAX_CONTINUATION_CHARS) {
      ignored++;
      continue;
    }
    const result = continuations.openWork(req, binding, id.slice(0, at), id.slice(at + TAG.length), budget);
    if ('payload' in result) {
      works.set(id, result.payload.work.filter(isObject));
      for (const tool of result.payload.succeeded) succeeded.add(tool);
      budget -= result.bytes;
    } else if ('failed' in result && result.failed === 'too large') {
      budget = 0;
      ignored++;
    } else forged++;
  }
  const restored: ResponseItem[] = [];
  for (const item of input) {
    const at = tokenAt(item);
    if (at < 0) {
      restored.push(item);
      continue;
    }
    const id = carrierOf(item) as string;
    const work = item.type === 'function_call_output' ? undefined : works.get(id);
    if (work && !chained) restored.splice(insertionPoint(restored, restored.length), 0, ...work);
    else if (work && String(item.type).startsWith('mcp_approval_')) restored.push(...unsent(work));
    works.delete(id);
    restored.push({ ...item, [idField(item)]: id.slice(0, at) });
  }
  return { input: restored, succeeded: [...succeeded], forged, ignored };
}
