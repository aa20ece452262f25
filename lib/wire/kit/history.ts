import type { Request } from 'express';
import type { Reopened } from '../../hand-back/continuation';
import type { ApprovalReader, PersonDecision } from '../../person/approval-decision';
import { personTools, type PersonTools } from './approval-exchange';
import { settleAndDecide, type ApprovalHistory } from './approval-settle';
import type { HandBacks, Wire, WireRequest } from '../../loop/wire';

/** A follow-up's history with the loop's earlier work put back, in the field it came in. */
type RestoredIn<Field extends string, Item> = Reopened & Record<Field, Item[]>;

/** A follow-up's history with its approval exchanges settled, in the field it came in. */
type SettledIn<Field extends string, Item> = { decisions: PersonDecision[] } & Record<Field, Item[]>;

/**
 * A wire's settling of a follow-up's approval exchanges (`exchangesOf` finds them in its history, asked with the
 * client's tools that ask the person), the settled history in the field the request carries it in.
 */
export function settledIn<Field extends string, Item>(
  field: Field,
  exchangesOf: (items: readonly Item[], tools: PersonTools) => ApprovalHistory<Item> | undefined,
) {
  return (
    reader: ApprovalReader,
    req: Request,
    binding: string,
    items: readonly Item[],
  ): SettledIn<Field, Item> | undefined => {
    const settled = settleAndDecide(reader, req, binding, exchangesOf(items, personTools(reader)));
    return settled && ({ [field]: settled.items, decisions: settled.decisions } as SettledIn<Field, Item>);
  };
}

/**
 * A wire whose request carries its whole history in one list (`messages`, `contents`): its follow-ups restored
 * (`restore`: the wire's hand-backs put back) and settled (`settle`: its approval exchanges read back) in that list.
 */
export function historyIn<Field extends string, Item>(
  field: Field,
  restore: (handBacks: HandBacks, items: readonly Item[]) => RestoredIn<Field, Item> | undefined,
  settle: (
    reader: ApprovalReader,
    req: Request,
    binding: string,
    items: readonly Item[],
  ) => SettledIn<Field, Item> | undefined,
): Pick<Wire, 'restore' | 'approvals'> {
  const itemsOf = (body: WireRequest) => body[field] as Item[];
  return {
    restore(body, handBacks) {
      const restored = restore(handBacks, itemsOf(body));
      if (!restored) return undefined;
      const { [field as string]: items, ...reopened } = restored as Record<string, unknown>;
      return { body: { ...body, [field]: items }, ...(reopened as unknown as Reopened) };
    },
    approvals: {
      settle(reader, req, binding, body) {
        const settled = settle(reader, req, binding, itemsOf(body));
        return settled && { body: { ...body, [field]: settled[field] }, decisions: settled.decisions };
      },
      withItems: (body, items) => ({ ...body, [field]: [...items] }),
    },
  };
}
