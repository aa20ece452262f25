import express, { type ErrorRequestHandler, type Router } from 'express';
import type { Logger } from '../types';
import { adminApi, type AdminSubject } from './api';
import { apiError } from '../shared/openai-error';
import { bearerAuth } from './auth';
import { checked } from './options';
import { adminPage } from './page';

/** A body express.json() refused: a 400 in OpenAI's shape, not Express's HTML page. */
const refusedBody: ErrorRequestHandler = function refusedAdminBody(
  error: { status?: number; expose?: boolean; message: string },
  _req,
  res,
  next,
) {
  if (res.headersSent || !error.expose || !error.status || error.status >= 500) return next(error);
  apiError(res, error.status, `admin API: ${error.message}`, 'invalid_request');
};

/**
 * The admin API under `api/` and the page at the root: mount it where you like, e.g. `app.use('/admin', loop.admin({
 * key }))`.
 */
export function adminRouter(subject: AdminSubject, options: unknown, logger: Logger): Router {
  const valid = checked(options);
  const router = express.Router();
  if ('key' in valid) router.use('/api', bearerAuth(valid.key, logger));
  router.use('/api', adminApi(subject), refusedBody);
  router.use(adminPage());
  return router;
}
