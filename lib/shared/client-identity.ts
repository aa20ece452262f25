import type { IncomingMessage } from 'node:http';
import { API_KEY_HEADERS, bearerOf, keyDigest } from './credential';

/** One place a client may send its key in, and how to read it off a request (undefined: not there). */
interface CredentialSource {
  /** as a message to the client names it */
  name: string;
  read(req: IncomingMessage): string | undefined;
}

const trimmed = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** `Authorization: Bearer <key>` is the key; any other scheme (or a malformed bearer) is the credential as sent. */
const authorization: CredentialSource = {
  name: 'Authorization',
  read: ({ headers }) => bearerOf(headers) ?? trimmed(headers.authorization),
};

const header = (name: string): CredentialSource => ({ name, read: ({ headers }) => trimmed(headers[name]) });

/** Google's clients may send their key as `?key=` instead of `x-goog-api-key`. */
const keyParameter: CredentialSource = {
  name: 'the key query parameter',
  read: ({ url }) => trimmed(new URLSearchParams(url?.split('?')[1] ?? '').get('key')),
};

/** Every place a client's key is read from, in order: one more is one more line. */
const CREDENTIAL_SOURCES: readonly CredentialSource[] = [authorization, ...API_KEY_HEADERS.map(header), keyParameter];

/** The one credential a request presents (whichever way it came), or the places that disagree about it. */
export type Presented = { credential?: string } | { conflicting: string[] };

/**
 * What the client presented as its credential: the same key in several places is one credential (`Authorization:
 * Bearer K` and `x-api-key: K`); two different values are a conflict, which is refused, never settled by picking one.
 */
export function presentedCredential(req: IncomingMessage): Presented {
  const found = CREDENTIAL_SOURCES.flatMap((source) => {
    const value = source.read(req);
    return value === undefined ? [] : [{ name: source.name, value }];
  });
  const values = new Set(found.map(({ value }) => value));
  if (values.size > 1) return { conflicting: found.map(({ name }) => name) };
  return found.length === 0 ? {} : { credential: found[0].value };
}

/**
 * Who the client is: the SHA-256 (hex) of the one credential it presented, the same however it was sent. Budgets,
 * the OAuth user, continuations and approvals are keyed on it. Undefined without a credential, or with conflicting
 * ones (such a request is refused before it gets here).
 */
export function clientIdentity(req: IncomingMessage): string | undefined {
  const presented = presentedCredential(req);
  return 'credential' in presented && presented.credential !== undefined
    ? keyDigest(presented.credential).toString('hex')
    : undefined;
}

/** The 401's message for a request that presents conflicting credentials. */
export const conflictMessage = (conflicting: readonly string[]): string =>
  `the request presents different credentials in ${conflicting.join(' and ')}; ` +
  'send one key (the same key wherever it is sent)';
