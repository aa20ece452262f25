/** What stands in for a credential in a log line, an answer or an error message. */
const REDACTED = '[redacted]';
/** What stands in for a secret option's value in an option error: a placeholder, not a credential to redact again. */
export const NOT_SHOWN = '[not shown]';

/** `scheme://user:password@host`: the user info goes, the host stays. */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
/** A URL's query string often carries a key (`?key=`, `?token=`, a signed URL): it goes whole. */
const QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi;
/** `Authorization: Bearer <token>` or `Basic <credentials>`: a credential has a digit or a symbol, a word has not */
const SCHEME_CREDENTIAL = /\b(bearer|basic)(\s+)(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/gi;
/**
 * Provider keys by their prefixes: OpenAI and Anthropic (`sk-`, `sk-ant-`, `sk-proj-`), Stripe-like, GitHub, Slack,
 * Google
 */
const KEY_SHAPES =
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{12,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{30,}/g;
/** `x-api-key: v`, `api_key=v`, `"password": "v"`, `--token=v`: the value of a field named like a credential */
const NAMED_VALUE =
  /((?:x-)?(?:api[-_]?key|access[-_]?token|auth[-_]?token|token|secret|password|passwd|authorization)["']?\s*[:=]\s*["']?)(?!\[redacted\]|\[not shown\]|(?:bearer|basic)\s)[^\s"',;&]+/gi;
/** a command-line flag that takes a credential as its next argument: `--api-key sk-...`, `--token x` */
const SECRET_FLAG = /^--?[\w-]*(?:key|token|secret|password|passwd|auth)[\w-]*$/i;

/**
 * Credentials in text that came from elsewhere (an upstream's error, a model-written reason, a server's stderr, a
 * configured URL) replaced by `[redacted]`, before it is logged or shown: bearer and basic credentials, provider
 * keys (`sk-...`), credential-named fields (`x-api-key: ...`, `password=...`), query strings and URL user info.
 */
export function redacted(text: string): string {
  return text
    .replace(USER_INFO, `$1${REDACTED}@`)
    .replace(QUERY, `$1?${REDACTED}`)
    .replace(SCHEME_CREDENTIAL, `$1$2${REDACTED}`)
    .replace(KEY_SHAPES, REDACTED)
    .replace(NAMED_VALUE, `$1${REDACTED}`);
}

/** A command line's arguments, each redacted, and the value after a flag that names a credential too. */
export function redactedArgs(args: readonly unknown[]): unknown[] {
  return args.map((arg, i) => {
    if (i > 0 && SECRET_FLAG.test(String(args[i - 1])) && !String(args[i - 1]).includes('=')) return REDACTED;
    return typeof arg === 'string' ? redacted(arg) : arg;
  });
}

/**
 * A request's path and query as a log line or a span shows it: without the `key` a Gemini client may send in the query.
 */
export function loggedPath(url: string): string {
  const at = url.indexOf('?');
  if (at < 0 || !/[?&]key=/.test(url)) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => !pair.startsWith('key='));
  return query.length > 0 ? `${url.slice(0, at)}?${query.join('&')}` : url.slice(0, at);
}
