import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { openAiError, type OpenAiErrorFields } from './openai-error';

/**
 * The headers a client may send its key in instead of `Authorization: Bearer` (Anthropic's clients: `x-api-key`,
 * Google's: `x-goog-api-key`).
 * A wire's `apiKey` can name only one of these, so each is read wherever the client's key is.
 */
const API_KEY_HEADERS = ['x-api-key', 'x-goog-api-key'] as const;
export type ApiKeyHeader = (typeof API_KEY_HEADERS)[number];

/** Every header a client's key may come in. */
export const CLIENT_KEY_HEADERS = ['authorization', ...API_KEY_HEADERS] as const;

/** A key's SHA-256: compared, counted and bound by this, never by the key itself. */
export const keyDigest = (key: string): Buffer => createHash('sha256').update(key).digest();

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The key of `Authorization: Bearer <key>`; undefined for any other scheme, an empty or a spaced key. */
export const bearerOf = (headers: IncomingHttpHeaders): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];

/** What the client presented as its key: a bearer token, then the API key headers (all of them, when it sent several). */
export function presentedKeys(headers: IncomingHttpHeaders): string[] {
  return [bearerOf(headers), ...API_KEY_HEADERS.map((name) => headerOf(headers, name))].filter(
    (key): key is string => key !== undefined,
  );
}

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

/** The client's credential as the request carries it: `Authorization`, else an API key header; undefined without one. */
export function credentialOf(req: IncomingMessage): string | undefined {
  const value = CLIENT_KEY_HEADERS.map((name) => headerOf(req.headers, name)).find((header) => header !== undefined);
  return value !== '' ? value : undefined;
}

/** A 401 in OpenAI's shape (`invalid_api_key`), with the `www-authenticate` challenge that says what to send. */
export function refuseKey(res: Response, challenge: string, message: string, fields: OpenAiErrorFields = {}): void {
  res.setHeader('www-authenticate', challenge);
  res.status(401).json(openAiError(message, 'invalid_request_error', { ...fields, code: 'invalid_api_key' }));
}
