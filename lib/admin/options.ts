import { AgentLoopError } from '../errors';
import { unknownOption } from '../options/option-error';

/**
 * `{ key }`: the API wants `Authorization: Bearer <key>`; `{ auth: false }`: your own middleware in front guards it.
 */
export type AdminOptions = { key: string } | { auth: false };

export const MIN_KEY_LENGTH = 16;

const FIX =
  `give the admin key, at least ${MIN_KEY_LENGTH} characters, e.g. loop.admin({ key: ` +
  `process.env.AGENT_LOOP_ADMIN_KEY }) (openssl rand -hex 32 makes one), or loop.admin({ auth: false }) when ` +
  `your own middleware in front authenticates`;

function shown(key: unknown): string {
  if (key === undefined) return 'missing';
  return typeof key === 'string'
    ? `a string of ${key.length} characters (not shown)`
    : `a ${key === null ? 'null' : typeof key} (not shown)`;
}

export function checked(options: unknown): AdminOptions {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
  const unknown = Object.keys(given).find((name) => name !== 'key' && name !== 'auth');
  if (unknown !== undefined) throw unknownOption('loop.admin', [unknown], ['key', 'auth']);
  if (given.auth === false && given.key === undefined) return { auth: false };
  if (typeof given.key === 'string' && given.key.length >= MIN_KEY_LENGTH && given.auth === undefined)
    return { key: given.key };
  if (given.auth !== undefined && given.key !== undefined)
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `loop.admin: give either key or auth: false, not both; ${FIX}.`,
    );
  if (given.auth !== undefined)
    throw new AgentLoopError(
      'ERR_AGENT_LOOP_INVALID_OPTION',
      `loop.admin: option 'auth' is ${JSON.stringify(given.auth)}; ` +
        `only auth: false is an option (it turns authentication off); else ${FIX}.`,
    );
  throw new AgentLoopError('ERR_AGENT_LOOP_NO_ADMIN_KEY', `loop.admin: option 'key' is ${shown(given.key)}; ${FIX}.`);
}
