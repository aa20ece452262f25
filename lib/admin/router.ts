import express, { type ErrorRequestHandler, type Router } from 'express';
import { AgentLoopError } from '../errors';
import type { Logger } from '../types';
import { adminApi, type AdminSubject } from './api';
import { apiError, bearerAuth } from './auth';
import { adminPage } from './page';

/** `{ key }`: the API wants `Authorization: Bearer <key>`; `{ auth: false }`: your own middleware in front guards it. */
export type AdminOptions = { key: string } | { auth: false };

export const MIN_KEY_LENGTH = 16;

const FIX = `give the admin key, at least ${MIN_KEY_LENGTH} characters, e.g. loop.admin({ key: process.env.AGENT_LOOP_ADMIN_KEY }) (openssl rand -hex 32 makes one), or loop.admin({ auth: false }) when your own middleware in front authenticates`;

function shown(key: unknown): string {
  if (key === undefined) return 'missing';
  return typeof key === 'string' ? `a string of ${key.length} characters (not shown)` : `a ${key === null ? 'null' : typeof key} (not shown)`;
}

function checked(options: unknown): AdminOptions {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
  const unknown = Object.keys(given).find((name) => name !== 'key' && name !== 'auth');
  if (unknown !== undefined) throw new AgentLoopError('ERR_AGENT_LOOP_UNKNOWN_OPTION', `loop.admin: unknown option '${unknown}'. Known options here: key, auth.`);
  if (given.auth === false && given.key === undefined) return { auth: false };
  if (typeof given.key === 'string' && given.key.length >= MIN_KEY_LENGTH && given.auth === undefined) return { key: given.key };
  if (given.auth !== undefined && given.key !== undefined) throw new AgentLoopError('ERR_AGENT_LOOP_INVALID_OPTION', `loop.admin: give either key or auth: false, not both; ${FIX}.`);
  if (given.auth !== undefined) throw new AgentLoopError('ERR_AGENT_LOOP_INVALID_OPTION', `loop.admin: option 'auth' is ${JSON.stringify(given.auth)}; only auth: false is an option (it turns authentication off); else ${FIX}.`);
  throw new AgentLoopError('ERR_AGENT_LOOP_NO_ADMIN_KEY', `loop.admin: option 'key' is ${shown(given.key)}; ${FIX}.`);
}

/** A body express.json() refused: a 400 in OpenAI's shape, not Express's HTML page. */
const refusedBody: ErrorRequestHandler = function refusedAdminBody(error: { status?: number; expose?: boolean; message: string }, _req, res, next) {
  if (res.headersSent || !error.expose || !error.status || error.status >= 500) return next(error);
  apiError(res, error.status, `admin API: ${error.message}`, 'invalid_request');
};

/** The admin API under `api/` and the page at the root: mount it where you like, e.g. `app.use('/admin', loop.admin({ key }))`. */
export function adminRouter(subject: AdminSubject, options: unknown, logger: Logger): Router {
  const valid = checked(options);
  const router = express.Router();
  if ('key' in valid) router.use('/api', bearerAuth(valid.key, logger));
  router.use('/api', adminApi(subject), refusedBody);
  router.use(adminPage());
  return router;
}
