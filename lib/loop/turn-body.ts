/** A chat completion request as the front door receives it. */
export interface TurnRequest {
  json: string;
  stream: boolean;
}

/** `{"a":1}` as `{"a":1,`, `{}` as `{`: the start of an object more fields follow */
export const openObject = (json: string): string => (json === '{}' ? '{' : `${json.slice(0, -1)},`);

export const turnRequest = (body: Record<string, unknown>): TurnRequest => ({
  json: JSON.stringify(body),
  stream: body.stream === true,
});

/**
 * Every turn's request body, serialised as the conversation grows: the client's request (with the loop's tools)
 * once per loop, each item of the conversation (under `key`: `messages`, or Responses' `input`) once, when it joins. A
 * turn only joins the pieces, so a long history or a large tool
 * list is serialised once per loop rather than once per turn. The loop appends to its messages; one it replaces
 * (an elided result) is serialised again after `rewind`.
 */
export class TurnBody {
  private head?: string;
  private readonly rest: Record<string, unknown>;
  private readonly stream: boolean;
  private messages = '';
  private serialised = 0;
  /** where each serialised message ends in `messages` */
  private readonly ends: number[] = [];

  constructor(
    body: Record<string, unknown>,
    private readonly key = 'messages',
  ) {
    const { [key]: _joinedPerTurn, ...rest } = body;
    this.rest = rest;
    this.stream = body.stream === true;
  }

  /**
   * Throws (as the first turn, which then falls through) when the client's body cannot be serialised, e.g. nested too
   * deep.
   */
  request(messages: readonly unknown[]): TurnRequest {
    this.head ??= openObject(JSON.stringify(this.rest));
    for (; this.serialised < messages.length; this.serialised++) {
      this.messages += `${this.serialised === 0 ? '' : ','}${JSON.stringify(messages[this.serialised]) ?? 'null'}`;
      this.ends.push(this.messages.length);
    }
    return { json: `${this.head}"${this.key}":[${this.messages}]}`, stream: this.stream };
  }

  /**
   * Appends to a list of the request (`tools`: the tools a search loaded), after what it held: serialised again once.
   */
  appendTo(key: string, items: readonly unknown[]): void {
    const list = this.rest[key];
    this.rest[key] = [...(Array.isArray(list) ? list : []), ...items];
    this.head = undefined;
  }

  /** Forgets the messages from `index` on, so that the next request serialises them again. */
  rewind(index: number): void {
    if (index >= this.serialised) return;
    this.serialised = index;
    this.ends.length = index;
    this.messages = this.messages.slice(0, index === 0 ? 0 : this.ends[index - 1]);
  }
}
