import type { NextFunction, Request, Response } from 'express';
import { bearerOf, invalidKeyError, isKnownKey, keyDigest, refuseKey } from '../shared/credential';
import type { Logger } from '../types';

/**
 * `Authorization: Bearer <key>`, compared in constant time; anything else is a 401 in OpenAI's shape, logged
 * without the key.
 */
export function bearerAuth(key: string, logger: Logger) {
  const expected = [keyDigest(key)];
  return function adminAuth(req: Request, res: Response, next: NextFunction): void {
    const given = bearerOf(req.headers);
    if (given !== undefined && isKnownKey([given], expected)) return next();
    logger.warn('agent-loop admin API refused a request: no or wrong admin key', {
      ip: req.ip,
      method: req.method,
      path: req.originalUrl,
    });
    const message =
      given === undefined
        ? 'admin API: no admin key given; send Authorization: Bearer <admin key>'
        : 'admin API: incorrect admin key provided';
    refuseKey(res, 'Bearer realm="agent-loop admin"', invalidKeyError(message, { param: null }));
  };
}
