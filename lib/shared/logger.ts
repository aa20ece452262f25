import Joi from 'joi';
import winston from 'winston';
import { option } from '../options/declaration';
import type { Logger } from '../types';

/**
 * The `logger` option of agentLoop and mcpTrellis. Joi validates a copy; the caller's own logger (its prototype, its
 * private fields) is what logs.
 */
export const loggerOption = option<Logger>({
  schema: Joi.object({
    error: Joi.function().required(),
    warn: Joi.function().required(),
    info: Joi.function().required(),
    debug: Joi.function().required(),
  })
    .unknown()
    .custom((_copy, helpers) => helpers.original),
  hint: 'it must be a winston-compatible logger with error, warn, info and debug methods, e.g. logger: winston.createLogger()',
});

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
