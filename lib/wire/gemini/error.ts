/** The canonical status Google's errors name beside each HTTP status the loop answers with. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
};

/** Google's error body, `{ error: { code, message, status } }`: the status the code's, `INTERNAL` for any other. */
export const googleError = (code: number, message: string): unknown => ({
  error: { code, message, status: GOOGLE_STATUS[code] ?? 'INTERNAL' },
});
