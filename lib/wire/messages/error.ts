/** The Messages API's error type for each status it answers with. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** The Messages API's error body, `{ type: 'error', error: { type, message } }` (its shape has no field or code). */
export const messagesError = (status: number, message: string) => ({
  type: 'error' as const,
  error: { type: ERROR_TYPES[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error'), message },
});
