/**
 * Express routes a request on its raw path (`/x/../v1/chat/completions` matches no `app.use('/v1', ...)`), while a
 * URL parser normalises it (dot segments, `%2e`, `\`) into another one. A path where the two can differ, or that
 * carries an encoded slash, which some servers decode, is one the loop does not run on: its turns could land where
 * the client's request was not routed, past guardrails mounted there, marked so that the others skip them.
 */
const AMBIGUOUS = /%2e|%2f|%5c|\\|(^|\/)\.\.?(\/|$)/i;

export function isAmbiguousPath(originalUrl: string): boolean {
  const path = originalUrl.split('?', 1)[0];
  if (AMBIGUOUS.test(path)) return true;
  try {
    return new URL(`http://front.door${path}`).pathname !== path; // as the self-call's URL is built
  } catch {
    return true;
  }
}
