import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { AgentLoopError } from '../errors';

export interface ClientKeysConfig {
  /** keys a client may send (`Authorization: Bearer <key>` or `x-api-key: <key>`) */
  clientKeys?: string[];
  /** an environment variable holding more, separated by commas or white space */
  clientKeysEnv?: string;
}

const digest = (key: string) => createHash('sha256').update(key).digest();

/** The keys of `config`, those of its environment variable included; undefined when it names none (an open gateway). */
export function clientKeysOf({ clientKeys = [], clientKeysEnv }: ClientKeysConfig): string[] | undefined {
  const fromEnv = clientKeysEnv === undefined ? [] : (process.env[clientKeysEnv] ?? '').split(/[\s,]+/).filter(Boolean);
  if (clientKeysEnv !== undefined && fromEnv.length === 0) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `createGateway: option 'clientKeysEnv' names ${clientKeysEnv}, which holds no key; set it to the client keys, separated by commas, e.g. ${clientKeysEnv}=key-one,key-two, or leave clientKeysEnv out.`,
    );
  }
  const keys = [...clientKeys, ...fromEnv];
  return keys.length > 0 ? keys : undefined;
}

/** What the client presented as its key: a bearer token, else `x-api-key`. */
function presented(headers: IncomingHttpHeaders): string[] {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  const apiKey = headers['x-api-key'];
  return [bearer, typeof apiKey === 'string' ? apiKey : undefined].filter((key): key is string => key !== undefined);
}

/**
 * Answers 401 (OpenAI's error shape) unless the request carries one of `keys`. Keys are compared as SHA-256
 * digests with `timingSafeEqual`, every one of them each time: how long it takes tells nothing of how close a guess is.
 */
export function requireClientKey(keys: string[]): RequestHandler {
  const known = keys.map(digest);
  return function clientKey(req, res, next) {
    const given = presented(req.headers).map(digest);
    let match = false;
    for (const candidate of given) for (const key of known) match = timingSafeEqual(candidate, key) || match;
    if (match) return next();
    res
      .status(401)
      .set('www-authenticate', 'Bearer')
      .json({
        error: {
          message:
            'this gateway needs a client key: send Authorization: Bearer <key> (or x-api-key: <key>) with a key its operator gave you',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
  };
}
