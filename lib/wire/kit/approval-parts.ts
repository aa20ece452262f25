/**
 * Where a wire whose messages are lists of parts keeps them (Messages' `content` blocks, Gemini's `parts`): an
 * answer to a call is a part of the next user message, beside the turn's other answers.
 */
export interface PartsShape<Item, Part> {
  partsOf(item: Item | undefined): Part[];
  /** the item holding `parts` instead of its own (a new one when `item` is undefined, in the user's role) */
  withParts(item: Item | undefined, parts: Part[]): Item;
  roleOf(item: Item): unknown;
  /** the role the client's messages have (`user`) */
  readonly user: string;
}

/** The index of the last item in `role` (the model's): its approvals are the ones that decide now; -1: none. */
export const lastIn = <Item extends { role?: unknown }>(items: readonly Item[], role: string): number =>
  items.reduce((last, item, i) => (item.role === role ? i : last), -1);

/** A user item without its answers to approvals (`isAnswer`), undefined when nothing is left; any other item as is. */
export function withoutAnswers<Item, Part>(
  item: Item,
  shape: PartsShape<Item, Part>,
  isAnswer: (part: Part) => boolean,
): Item | undefined {
  const parts = shape.partsOf(item);
  const kept = shape.roleOf(item) === shape.user ? parts.filter((part) => !isAnswer(part)) : parts;
  if (kept.length === 0) return undefined;
  return kept.length === parts.length ? item : shape.withParts(item, kept);
}

/** `answer` joins the user item after `at` in `out` (the answers of its turn), or comes in a user item of its own. */
export function answerBeside<Item, Part>(out: Item[], at: number, answer: Part, shape: PartsShape<Item, Part>): void {
  const next = out[at + 1];
  if (next !== undefined && shape.roleOf(next) === shape.user)
    out[at + 1] = shape.withParts(next, [...shape.partsOf(next), answer]);
  else out.splice(at + 1, 0, shape.withParts(undefined, [answer]));
}

/** The calls of a model item that all ask the person (an approval exchange); undefined: none, or another call too. */
export const allAsking = <Call>(calls: Call[], asks: (call: Call) => boolean): Call[] | undefined =>
  calls.length > 0 && calls.every(asks) ? calls : undefined;
