import type { RequestHandler } from 'express';
import { isKnownKey, keyDigest, presentedKeys, refuseKey } from '../credential';
import { AgentLoopError } from '../errors';

export interface ClientKeysConfig {
  /** keys a client may send (`Authorization: Bearer <key>` or `x-api-key: <key>`) */
  clientKeys?: string[];
  /** an environment variable holding more, separated by commas or white space */
  clientKeysEnv?: string;
}

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

/**
 * Answers 401 (OpenAI's error shape) unless the request carries one of `keys` (as a bearer token or `x-api-key`),
 * compared as SHA-256 digests in constant time.
 */
export function requireClientKey(keys: string[]): RequestHandler {
  const known = keys.map(keyDigest);
  return function clientKey(req, res, next) {
    if (isKnownKey(presentedKeys(req.headers), known)) return next();
    refuseKey(
      res,
      'Bearer',
      'this gateway needs a client key: send Authorization: Bearer <key> (or x-api-key: <key>) with a key its operator gave you',
    );
  };
}
