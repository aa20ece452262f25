import { createHash } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** shorter model ids than this are not taken as a form (a test's `a`, `c1`) */
const SHORTEST_FORM = 6;

function alphanumeric(seed: string, length: number): string {
  let out = '';
  for (let round = 0; out.length < length; round++) {
    for (const byte of createHash('sha256').update(`${seed}:${round}`).digest())
      if (out.length < length) out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  }
  return out;
}

/**
 * The id the loop gives a call that came without one (or with one the conversation already used), in the form of
 * the model's own ids, as providers that check ids refuse any other (Mistral takes only 9 letters and digits): a
 * model id of letters and digits only gets one of the same length; any other form gets `fallback`. Never one in `used`.
 */
export function givenId(like: string | undefined, fallback: string, used: ReadonlySet<string>): string {
  if (like === undefined || like.length < SHORTEST_FORM || !/^[A-Za-z0-9]+$/.test(like)) return fallback;
  for (let attempt = 0; ; attempt++) {
    const id = alphanumeric(`${fallback}:${attempt}`, like.length);
    if (!used.has(id)) return id;
  }
}

/**
 * The call ids a conversation holds, kept as it grows: each item is read once, the first time `of` sees it, so a
 * loop does not read its whole conversation again every turn. The conversation is only ever appended to, and no
 * item already read gains a call (Messages' results join the last user message: results only).
 */
export class TakenIds<Item> {
  private readonly ids = new Set<string>();
  private read = 0;

  constructor(private readonly idsIn: (item: Item) => Iterable<string>) {}

  /** Every id in `items`, in their order; the loop adds the ids it gives the turn's calls, which join `items` next. */
  of(items: readonly Item[]): Set<string> {
    for (; this.read < items.length; this.read++) for (const id of this.idsIn(items[this.read])) this.ids.add(id);
    return this.ids;
  }
}
