import winston from 'winston';

/** What the loop logs with: winston's four levels (any logger that has them). */
export interface Logger {
  error(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  debug(message: string, meta?: Record<string, unknown>): unknown;
  isLevelEnabled?(level: string): boolean;
}

let shared: winston.Logger | undefined;

/** One JSON winston logger per process, level from LOG_LEVEL, created on first use. */
export function defaultLogger(): Logger {
  shared ??= winston.createLogger({
    level: process.env.LOG_LEVEL ?? 'info',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { component: 'agent-loop' },
    transports: [new winston.transports.Console()],
  });
  return shared;
}

/** Whether `level` would be written, so hot paths skip building log metadata nobody reads. */
export function logs(logger: Logger, level: 'info' | 'debug'): boolean {
  return logger.isLevelEnabled ? logger.isLevelEnabled(level) : true;
}

/** `logger` with `fields` on every line: a client's `x-request-id` on every line of its loop. */
export function withFields(logger: Logger, fields: Record<string, unknown>): Logger {
  const at = (level: 'error' | 'warn' | 'info' | 'debug') =>
    function logWithFields(message: string, meta?: Record<string, unknown>) {
      return logger[level](message, { ...fields, ...meta });
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    ...(logger.isLevelEnabled ? { isLevelEnabled: (level: string) => logger.isLevelEnabled!(level) } : {}),
  };
}
