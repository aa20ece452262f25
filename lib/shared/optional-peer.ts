/**
 * An optional peer dependency, loaded on first use: undefined when the host app did not install it, so that an
 * app without it pays nothing (no import at start-up, no objects per request).
 */
export function optionalPeer<T>(name: '@opentelemetry/api' | 'prom-client' | 'ioredis'): T | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch {
    return undefined;
  }
}
