import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Response } from 'express';
import { openAiError, type OpenAiErrorFields } from './openai-error';

/**
 * The headers a client may send its key in instead of `Authorization: Bearer` (Anthropic's clients: `x-api-key`,
 * Google's: `x-goog-api-key`): each wire's `apiKey.header`, listed here because the client's identity is read below the
 * wires (`client-identity.ts`); a spec holds this list equal to the wires' headers. A wire's `apiKey` names one, so
 * each is read wherever the client's key is.
 */
export const API_KEY_HEADERS = ['x-api-key', 'x-goog-api-key'] as const;
export type ApiKeyHeader = (typeof API_KEY_HEADERS)[number];

/** Every header a client's key may come in. */
export const CLIENT_KEY_HEADERS = ['authorization', ...API_KEY_HEADERS] as const;

/** A key's SHA-256: compared, counted and bound by this, never by the key itself. */
export const keyDigest = (key: string): Buffer => createHash('sha256').update(key).digest();

/** The key of `Authorization: Bearer <key>`; undefined for any other scheme, an empty or a spaced key. */
export const bearerOf = (headers: IncomingHttpHeaders): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];

/**
 * Whether one of `given` is one of `known` (digests), every pair compared in constant time each time: how long it
 * takes tells nothing of how close a guess is, nor (both sides hashed first) how long either key is.
 */
export function isKnownKey(given: readonly string[], known: readonly Buffer[]): boolean {
  let match = false;
  for (const candidate of given.map(keyDigest))
    for (const key of known) match = timingSafeEqual(candidate, key) || match;
  return match;
}

/** OpenAI's body of a 401 (`invalid_api_key`). */
export const invalidKeyError = (message: string, fields: OpenAiErrorFields = {}) =>
  openAiError(message, 'invalid_request_error', { ...fields, code: 'invalid_api_key' });

/** A 401 with `body` (`invalidKeyError`, or a wire's own shape) and the `www-authenticate` challenge: what to send. */
export function refuseKey(res: Response, challenge: string, body: unknown): void {
  res.setHeader('www-authenticate', challenge);
  res.status(401).json(body);
}
