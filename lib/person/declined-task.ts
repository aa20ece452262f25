import { redacted } from '../shared/redact';
import type { Loop } from '../loop/context';

/**
 * Ends the MCP task whose question the person declined or cancelled, rather than leave it running on its server until
 * its ttl. A Trellis without `cancelTask` leaves it there; a cancel that fails is logged, the model reads the same.
 */
export async function cancelDeclinedTask(loop: Loop, taskId: string): Promise<void> {
  const { trellis, name: binding } = loop.binding;
  try {
    await trellis.cancelTask?.(taskId, { headers: loop.req.headers });
  } catch (error) {
    const reason = redacted((error as Error)?.message ?? String(error));
    loop.logger.warn('agent-loop could not cancel a task whose question was turned down', { binding, taskId, reason });
  }
}
