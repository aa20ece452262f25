import type { Loop } from '../../lib/loop/context';
import { cancelDeclinedTask } from '../../lib/person/declined-task';
import type { Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';

describe('cancelDeclinedTask: the task whose question the person turned down is ended', () => {
  const listTools = async () => [];
  const callTool = async () => ({ content: [] });
  const loopOn = (trellis: Trellis) => {
    const { logger, lines } = memoryLogger('warn');
    const loop = {
      binding: { name: 'builds', trellis },
      req: { headers: { 'x-team': 'a' } },
      logger,
    } as unknown as Loop;
    return { loop, lines };
  };

  it("asks the Trellis to cancel it, with the request's headers", async () => {
    const asked: unknown[] = [];
    const { loop, lines } = loopOn({
      listTools,
      callTool,
      cancelTask: async (taskId, options) => void asked.push([taskId, options]),
    });
    await cancelDeclinedTask(loop, 'task-1');
    expect(asked).toEqual([['task-1', { headers: { 'x-team': 'a' } }]]);
    expect(lines).toEqual([]);
  });

  it('leaves the task to its server on a Trellis without cancelTask', async () => {
    const { loop, lines } = loopOn({ listTools, callTool });
    await expect(cancelDeclinedTask(loop, 'task-1')).resolves.toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('logs a cancel that fails, and does not throw', async () => {
    const { loop, lines } = loopOn({
      listTools,
      callTool,
      cancelTask: async () => {
        throw new Error('server gone');
      },
    });
    await cancelDeclinedTask(loop, 'task-1');
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'agent-loop could not cancel a task whose question was turned down',
        binding: 'builds',
        taskId: 'task-1',
        reason: 'server gone',
      },
    ]);
  });
});
