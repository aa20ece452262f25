import type { Response } from 'express';

/** The fields OpenAI's error object may carry past `message` and `type`, in the order it writes them. */
export interface OpenAiErrorFields {
  /** the request's field at fault, e.g. `tools` */
  param?: string | null;
  code?: string | null;
}

/**
 * OpenAI's error body, `{ error: { message, type, ... } }`: clients and scripts that read OpenAI's errors read these
 * too.
 */
export const openAiError = (message: string, type: string, fields: OpenAiErrorFields = {}) => ({
  error: { message, type, ...fields },
});

/** OpenAI's whole error object for a status: `server_error` at 500 and above, else `invalid_request_error`. */
export const apiErrorBody = (
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
) => openAiError(message, status >= 500 ? 'server_error' : 'invalid_request_error', { param, code });

/** Answers `status` with OpenAI's whole error object. */
export function apiError(res: Response, status: number, message: string, code: string | null = null): void {
  res.status(status).json(apiErrorBody(status, message, code));
}
