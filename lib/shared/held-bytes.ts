/**
 * The turn fails once its reply passes `maxReplyBytes`: a hostile upstream cannot make the gateway buffer without end.
 */
export const replyTooLong = (maxReplyBytes: number) =>
  new Error(`the model's reply is longer than maxReplyBytes = ${maxReplyBytes}`);

/**
 * What a streamed turn holds, at most `maxBytes`: the message it assembles (text, calls, the model's other fields),
 * and any one line or event of its stream (`sseData`). Not what went through it: the SSE framing and each event's
 * envelope (ids, `system_fingerprint`, `logprobs`, `obfuscation`) pass on and are not kept.
 */
export class HeldBytes {
  private held = 0;

  constructor(readonly maxBytes = Infinity) {}

  /** `bytes` more the turn keeps; past `maxBytes` the turn fails */
  add(bytes: number): void {
    this.held += bytes;
    if (this.held > this.maxBytes) throw replyTooLong(this.maxBytes);
  }

  /** a piece of text the turn keeps */
  addText(text: string): void {
    this.add(Buffer.byteLength(text));
  }
}
