import type { RequestHandler } from 'express';
import { conflictMessage, presentedCredential } from '../shared/client-identity';
import { isKnownKey, keyDigest, refuseKey } from '../shared/credential';
import { errorBodyFor } from '../wire/wires';
import { AgentLoopError } from '../errors';

export interface ClientKeysConfig {
  /** keys a client may send (`Authorization: Bearer <key>` or `x-api-key: <key>`) */
  clientKeys?: string[];
  /** an environment variable holding more, separated by commas or white space */
  clientKeysEnv?: string;
}

/** A client key is at least this long, wherever it is configured: a short one is guessed. */
export const MIN_CLIENT_KEY_CHARS = 16;

/** The keys in `clientKeysEnv`'s variable; throws the coded error when it holds none, or a key too short. */
function keysInEnv(name: string): string[] {
  const keys = (process.env[name] ?? '').split(/[\s,]+/).filter(Boolean);
  if (keys.length === 0) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `createGateway: option 'clientKeysEnv' names ${name}, which holds no key; set it to the client keys, ` +
        `separated by commas, e.g. ${name}=key-one,key-two, or leave clientKeysEnv out.`,
    );
  }
  const short = keys.findIndex((key) => key.length < MIN_CLIENT_KEY_CHARS);
  if (short >= 0) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `createGateway: option 'clientKeysEnv' names ${name}, ` +
        `whose key ${short + 1} is ${keys[short].length} characters long (not shown); ` +
        `every client key must have at least ${MIN_CLIENT_KEY_CHARS} characters: ` +
        `set ${name} to longer keys, separated by commas.`,
    );
  }
  return keys;
}

/** The keys of `config`, those of its environment variable included; undefined when it names none (an open gateway). */
export function clientKeysOf({ clientKeys = [], clientKeysEnv }: ClientKeysConfig): string[] | undefined {
  const keys = [...clientKeys, ...(clientKeysEnv === undefined ? [] : keysInEnv(clientKeysEnv))];
  return keys.length > 0 ? keys : undefined;
}

/**
 * Answers 401 (in the error shape of the path's wire, else OpenAI's) unless the request's one credential (a bearer
 * token or `x-api-key`: the same key wherever it is sent) is one of `keys`, compared as SHA-256 digests in constant
 * time. Different credentials in one request are refused: the key that admits is the key that is counted.
 */
export function requireClientKey(keys: string[]): RequestHandler {
  const known = keys.map(keyDigest);
  return function clientKey(req, res, next) {
    const presented = presentedCredential(req);
    if ('credential' in presented && presented.credential !== undefined && isKnownKey([presented.credential], known))
      return next();
    const message =
      'conflicting' in presented
        ? conflictMessage(presented.conflicting)
        : 'this gateway needs a client key: ' +
          'send Authorization: Bearer <key> (or x-api-key: <key>) with a key its operator gave you';
    refuseKey(res, 'Bearer', errorBodyFor(req.path, 401, message, { code: 'invalid_api_key' }));
  };
}
