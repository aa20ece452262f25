import { Writable } from 'node:stream';
import winston from 'winston';
import { agentLoop } from '../../lib';
import { defaultLogger, logs, withFields } from '../../lib/shared/logger';
import { loggerOption } from '../../lib/options/declaration';
import type * as LoggerModule from '../../lib/shared/logger';
import { memoryLogger } from '../helpers/memory-logger';

/** lib/shared/logger.ts afresh, with LOG_LEVEL as given: its logger is made on first use, once per process. */
function freshDefaultLogger(level: string | undefined): winston.Logger {
  const saved = process.env.LOG_LEVEL;
  if (level === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = level;
  try {
    let made: winston.Logger | undefined;
    jest.isolateModules(() => {
      made = (jest.requireActual('../../lib/shared/logger') as typeof LoggerModule).defaultLogger() as winston.Logger;
    });
    return made!;
  } finally {
    if (saved === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = saved;
  }
}

describe('defaultLogger', () => {
  it('is one logger per process', () => {
    expect(defaultLogger()).toBe(defaultLogger());
  });

  it('takes its level from LOG_LEVEL, else info', () => {
    expect(freshDefaultLogger('debug').level).toBe('debug');
    expect(freshDefaultLogger(undefined).level).toBe('info');
  });

  it('writes JSON lines with a timestamp and component agent-loop, to the console', () => {
    const logger = freshDefaultLogger('info');
    expect(logger.transports.map((transport) => transport.constructor.name)).toEqual(['Console']);
    const lines: Record<string, unknown>[] = [];
    logger.add(
      new winston.transports.Stream({
        stream: new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) }),
      }),
    );
    logger.transports[0].silent = true;
    logger.info('agent-loop started', { bindings: 2 });
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'agent-loop started',
        bindings: 2,
        component: 'agent-loop',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
  });
});

describe('logs', () => {
  it("asks the logger's level when it can tell", () => {
    const { logger } = memoryLogger('info');
    expect(logs(logger, 'info')).toBe(true);
    expect(logs(logger, 'debug')).toBe(false);
  });

  it('takes every level for written when the logger cannot tell', () => {
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    expect(logs(quiet, 'debug')).toBe(true);
  });
});

describe('withFields', () => {
  it('puts the fields on every line, each line keeping its own', () => {
    const { logger, lines } = memoryLogger();
    const scoped = withFields(logger, { requestId: 'req-7' });
    scoped.error('e', { code: 1 });
    scoped.warn('w');
    scoped.info('i', { requestId: 'its own' });
    scoped.debug('d');
    expect(lines).toEqual([
      { level: 'error', message: 'e', requestId: 'req-7', code: 1 },
      { level: 'warn', message: 'w', requestId: 'req-7' },
      { level: 'info', message: 'i', requestId: 'its own' },
      { level: 'debug', message: 'd', requestId: 'req-7' },
    ]);
  });

  it("keeps the logger's own level question, and has none where it had none", () => {
    expect(withFields(memoryLogger('warn').logger, {}).isLevelEnabled!('info')).toBe(false);
    expect(withFields({ error() {}, warn() {}, info() {}, debug() {} }, {}).isLevelEnabled).toBeUndefined();
  });
});

describe('the logger option', () => {
  /** A logger as a class with private fields: a copy of it (joi's) cannot log. */
  class PrivateLogger {
    #lines: string[] = [];
    error(message: string) {
      this.#lines.push(message);
    }
    warn(message: string) {
      this.#lines.push(message);
    }
    info(message: string) {
      this.#lines.push(message);
    }
    debug(message: string) {
      this.#lines.push(message);
    }
    get lines() {
      return this.#lines;
    }
  }

  it('is the caller’s own logger after validation, for agentLoop and for mcpTrellis', () => {
    const logger = new PrivateLogger();
    const validated = loggerOption.schema.validate(logger);
    expect(validated.error).toBeUndefined();
    expect(validated.value).toBe(logger);
    (validated.value as PrivateLogger).warn('logged');
    expect(logger.lines).toEqual(['logged']);
  });

  it('logs a Trellis failure through a logger with private fields', async () => {
    const logger = new PrivateLogger();
    const loop = agentLoop({
      bindings: [{ name: 'b', match: { model: 'm' }, hierarchy: 'a' }],
      trellis: { listTools: () => Promise.reject(new Error('down')), callTool: async () => ({ content: [] }) },
      logger,
    });
    await expect(loop.ready()).resolves.toEqual(expect.any(Object));
    await loop.close();
    expect(logger.lines.length).toBeGreaterThan(0);
  });
});
