import type { ErrorRequestHandler } from 'express';
import { parsedOrUndefined } from '../shared/parsed-json';
import { jsonKind } from '../loop/refused-request';
import { errorBodyFor } from '../wire/wires';

interface BodyError {
  status?: number;
  expose?: boolean;
  type?: string;
  /** the body as received, on a parse failure */
  body?: string;
  message: string;
}

/** Why express.json() refused a body: JSON but no object or list (what its strict mode takes), no JSON, too large. */
function bodyRefusal({ type, body, message }: BodyError): string {
  if (type !== 'entity.parse.failed') return message;
  const json = parsedOrUndefined(body ?? '');
  if (json === undefined) return `the request body is not valid JSON: ${message}`;
  return `the request body is JSON but not an object (${jsonKind(json)}); send a JSON object`;
}

/** A body express.json() refused (not JSON, too large): its wire's error (else OpenAI's), not Express's HTML page. */
export const refusedBody: ErrorRequestHandler = function refusedBody(error: BodyError, req, res, next) {
  if (res.headersSent || !error.expose || !error.status || error.status >= 500) return next(error);
  res.status(error.status).json(errorBodyFor(req.path, error.status, bodyRefusal(error)));
};
