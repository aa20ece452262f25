import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../types';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** OpenAI's error shape, so clients and scripts that read gateway errors read these too. */
export function apiError(res: Response, status: number, message: string, code: string | null = null): void {
  res
    .status(status)
    .json({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } });
}

/**
 * `Authorization: Bearer <key>`, compared in constant time (both sides hashed first, so their lengths do not
 * show either); anything else is a 401 in OpenAI's shape, logged without the key.
 */
export function bearerAuth(key: string, logger: Logger) {
  const expected = digest(key);
  return function adminAuth(req: Request, res: Response, next: NextFunction): void {
    const header = req.headers.authorization;
    const given = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return next();
    logger.warn('agent-loop admin API refused a request: no or wrong admin key', {
      ip: req.ip,
      method: req.method,
      path: req.originalUrl,
    });
    res.setHeader('www-authenticate', 'Bearer realm="agent-loop admin"');
    const message =
      given === undefined
        ? 'admin API: no admin key given; send Authorization: Bearer <admin key>'
        : 'admin API: incorrect admin key provided';
    apiError(res, 401, message, 'invalid_api_key');
  };
}
