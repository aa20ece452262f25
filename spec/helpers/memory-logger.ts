import type { Logger } from '../../lib/types';

/** One line as a JSON logger writes it: `level`, `message` and the line's fields beside them. */
export type LogLine = Record<string, unknown>;

const LEVELS = { error: 0, warn: 1, info: 2, debug: 3 } as const;
type Level = keyof typeof LEVELS;

/**
 * A logger whose lines at `level` and above land in `lines` as winston's JSON format writes them (the fields
 * beside `level` and `message`, through JSON), at once: tests assert on them the way pino-http's tests do, fake
 * timers included (winston's own streams leave ticks and immediates behind).
 */
export function memoryLogger(level: Level = 'debug'): { logger: Required<Logger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const isLevelEnabled = (asked: string) => asked in LEVELS && LEVELS[asked as Level] <= LEVELS[level];
  const at = (name: Level) =>
    function logLine(message: string, meta?: Record<string, unknown>) {
      if (isLevelEnabled(name)) lines.push(JSON.parse(JSON.stringify({ ...meta, level: name, message })));
    };
  return {
    logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), isLevelEnabled },
    lines,
  };
}
