import Joi from 'joi';
import { AgentLoopError } from '../errors';
import { MIN_KEY_LENGTH } from './options';

/** The gateway config's `admin`: the key is read from the environment variable it names, never from the file. */
export interface GatewayAdminConfig {
  keyEnv: string;
}

export const adminConfigSchema = Joi.object({
  keyEnv: Joi.string()
    .pattern(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .required(),
});

export const ADMIN_HINT =
  "it must be { keyEnv: 'AGENT_LOOP_ADMIN_KEY' }, naming the environment variable that holds the admin key";

/**
 * The admin key, with `admin` configured; without it, undefined: no admin route at all. A named variable that is
 * unset or short is a configuration error: the gateway does not start without the admin it was asked for.
 */
export function adminKeyOf(admin: GatewayAdminConfig | undefined): string | undefined {
  if (!admin) return undefined;
  const key = process.env[admin.keyEnv];
  if (key === undefined || key.length < MIN_KEY_LENGTH) {
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_NO_ADMIN_KEY',
      `createGateway: option 'admin.keyEnv' names ${admin.keyEnv}, which is ` +
        `${key === undefined ? 'not set' : `only ${key.length} characters long`}; set it to the admin key (at ` +
        `least ${MIN_KEY_LENGTH} characters, e.g. export ${admin.keyEnv}=$(openssl rand -hex 32)), or remove ` +
        `'admin' to serve no admin routes.`,
    );
  }
  return key;
}
