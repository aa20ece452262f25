import type { Logger } from '../../lib/types';

export interface LogEntry {
  level: 'error' | 'warn' | 'info' | 'debug';
  message: string;
  meta?: Record<string, unknown>;
}

export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (message: string, meta?: Record<string, unknown>) => entries.push({ level, message, meta });
  return { entries, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it passes or a generous deadline expires (then throws its last failure). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(25);
    }
  }
}
