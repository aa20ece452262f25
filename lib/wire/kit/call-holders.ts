/**
 * Where each model call sits in a list of items that only grows at its end, each item read once: `answers` says
 * which calls an item answers (a call answered in its holder or after it waits there no longer).
 */
export class CallHolders<Item> {
  private readonly holders = new Map<string, number>();
  private read = 0;

  constructor(
    private readonly calls: (item: Item) => readonly string[],
    private readonly answers: (item: Item) => readonly string[] = () => [],
  ) {}

  holderOf(out: readonly Item[], callId: string): number {
    for (; this.read < out.length; this.read++) {
      for (const id of this.calls(out[this.read])) this.holders.set(id, this.read);
      for (const id of this.answers(out[this.read])) this.holders.delete(id);
    }
    return this.holders.get(callId) ?? -1;
  }
}
