import { carryWork, reopenWork, tokenAt, type Reopened } from '../../hand-back/continuation';
import { elision } from './elision';
import { isObject, type ResponseItem } from './types';
import type { HandBacks, LoopHandBacks, WireCall } from '../../loop/wire';

/**
 * The client's own calls as handed back, the first one's `call_id` carrying a sealed record of the loop's earlier
 * items (its output items, reasoning included, and their answers), so that the follow-up brings them along.
 */
export function carryOn(handBacks: LoopHandBacks, calls: WireCall[], own: readonly ResponseItem[]): WireCall[] {
  const work = [...own];
  const names = elision.names(work);
  return carryWork(handBacks, calls, work, (item) => elision.elide(item, names)?.item);
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
const itemTokenAt = (item: ResponseItem): number => tokenAt(carrierOf(item));

export interface RestoredItems extends Reopened {
  input: ResponseItem[];
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
  while (
    at > 0 &&
    (input[at - 1].type === 'reasoning' || (input[at - 1].type === 'message' && input[at - 1].role === 'assistant'))
  )
    at--;
  return at;
}

/**
 * The follow-up's input with every call id cut back to the model's own and, unless the upstream holds the loop's
 * items itself (`chained`), each verified record put back before the call that carried it; `undefined` when no item
 * carries a token. Each token opens once, the latest first, within `MAX_WORK_BYTES` of work in all.
 */
export function restoreWork(
  handBacks: HandBacks,
  input: readonly ResponseItem[],
  chained: boolean,
): RestoredItems | undefined {
  if (!input.some((item) => itemTokenAt(item) >= 0)) return undefined;
  // a call and its output carry the same id: one token, opened once
  const latestFirst = new Set<string>();
  for (let i = input.length - 1; i >= 0; i--)
    if (itemTokenAt(input[i]) >= 0) latestFirst.add(carrierOf(input[i]) as string);
  const ids = [...latestFirst];
  const { works: opened, reopened } = reopenWork(handBacks, ids);
  const works = new Map(ids.map((id, n) => [id, opened[n]?.filter(isObject)]));
  const restored: ResponseItem[] = [];
  for (const item of input) {
    const at = itemTokenAt(item);
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
  return { input: restored, ...reopened };
}
