/** Past this many answers remembered, the oldest is forgotten first. */
const MAX_REMEMBERED = 100_000;

/**
 * The upstream's id behind each of the loop's answer ids. A streamed answer names its id before its last turn has
 * one, so the client gets the loop's own id, always; a follow-up that chains on it (`previous_response_id`) is
 * chained on the upstream's last reply of that loop, which holds the whole conversation. In this process only: a
 * fleet without sticky sessions chains only on the replica that ran the loop.
 */
export class AnswerIds {
  private readonly upstream = new Map<string, string>();

  remember(answerId: string, upstreamId: string): void {
    if (upstreamId === '') return;
    this.upstream.delete(answerId);
    if (this.upstream.size >= MAX_REMEMBERED) this.upstream.delete(this.upstream.keys().next().value as string);
    this.upstream.set(answerId, upstreamId);
  }

  /** the upstream's id for one of the loop's answer ids; any other id as it is */
  upstreamOf(id: string): string {
    return this.upstream.get(id) ?? id;
  }
}
