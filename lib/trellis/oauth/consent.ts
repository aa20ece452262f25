/**
 * A user must consent at the authorization server before the server's tools run for them: the loop answers with the
 * link.
 */
export class ConsentRequired extends Error {
  override readonly name = 'ConsentRequired';

  constructor(
    readonly server: string,
    readonly url: string,
  ) {
    // the message is what a log line or a tool error shows: the server, never the link (its state is one-time)
    super(`${server} needs the user's permission`);
  }
}

/** The text the client reads in place of an answer. */
export const consentNote = ({ server, url }: ConsentRequired): string =>
  `[agent-loop] ${server} needs your permission: open ${url}, then send your message again.`;

/** A call made without a signed-in user, to a server that needs one. */
export const needsUser = (tool: string): Error => new Error(`'${tool}' needs a signed-in user`);
