import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { clientIdentity } from '../../shared/client-identity';
import type { OAuthUser } from './options';

/** The user as the vault knows them: a hash of who the request says they are, never the credential itself. */
export const userKey = (user: string): string =>
  createHash('sha256').update(`agent-loop oauth user\n${user}`).digest('base64url').slice(0, 22);

export function named(option: OAuthUser, req: IncomingMessage): string | undefined {
  if (typeof option === 'string') {
    const value = req.headers[option.toLowerCase()];
    return typeof value === 'string' ? value : undefined;
  }
  try {
    const user = option(req);
    return typeof user === 'string' ? user : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who signs in, as the vault knows them (hashed): the client's identity (its key's hash, however it was sent: the
 * identity its continuations are bound to), or what `oauth.user` names; undefined when the request says nobody.
 */
export function userOf(req: IncomingMessage, option: OAuthUser | undefined): string | undefined {
  const user = option === undefined ? clientIdentity(req) : named(option, req);
  return user === undefined || user === '' ? undefined : userKey(user);
}
